// Shows one item (question, options, answer) fetched by the host from items/samples/<bench>.jsonl.
// Questions are data: a question holding markup shows as those characters.
import { clear, el } from '../../dom';
import { request } from '../../messages';

let card: HTMLElement | undefined;
let lookup: HTMLElement | undefined;

/**
 * The lookup form, made once for the panel's life: the report is drawn again whenever the artifacts
 * change (every few seconds while a sweep runs), and what the user typed or is reading must survive it.
 */
export function itemLookup(benchmarks: string[]): Node {
  lookup ??= makeLookup(benchmarks);
  return lookup;
}

function makeLookup(benchmarks: string[]): HTMLElement {
  const bench = el('vscode-textfield', { id: 'item-bench', placeholder: 'benchmark', value: benchmarks[0] ?? '' }) as HTMLElement & { value: string };
  const id = el('vscode-textfield', { id: 'item-id', placeholder: 'item id' }) as HTMLElement & { value: string };
  const show = el('vscode-button', { id: 'item-show' }, 'Show item');
  show.addEventListener('click', () => void showItem(bench.value.trim(), id.value.trim()));
  id.addEventListener('keydown', (e) => {
    if ((e as KeyboardEvent).key === 'Enter') void showItem(bench.value.trim(), id.value.trim());
  });
  card = el('div', { id: 'item-card', 'aria-live': 'polite' });
  return el('div', { class: 'lookup' }, bench, ' ', id, ' ', show, card);
}

export async function showItem(benchmark: string, itemId: string): Promise<void> {
  if (!card) return;
  clear(card);
  try {
    const item = await request('getItem', { benchmark, itemId });
    const letters = item.options.map((o, i) => el('li', {}, `(${String.fromCharCode(65 + i)}) ${o}`));
    card.appendChild(
      el(
        'div',
        { class: 'item' },
        el('p', { class: 'muted' }, `${item.benchmark} · ${item.item_id} · video ${item.video_id} · answer ${item.answer}`),
        el('p', { class: 'question' }, item.question),
        el('ul', { class: 'options' }, ...letters),
      ),
    );
  } catch (err) {
    card.appendChild(el('p', { class: 'error' }, (err as Error).message));
  }
  card.scrollIntoView({ block: 'nearest' });
}
