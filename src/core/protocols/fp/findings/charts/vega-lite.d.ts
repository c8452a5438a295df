// vega-lite declares its types only under package.json "exports", which this project's node10 resolution does not
// read; its build/index.d.ts is reachable by path, so the module's types are that file's. Types only: tsx and
// esbuild resolve 'vega-lite' at run time through its exports as usual.
declare module 'vega-lite' {
  export * from 'vega-lite/build/index';
}
