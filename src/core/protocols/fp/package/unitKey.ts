// One (benchmark, item_id, condition) unit as a map key: a CSV row, a raw record, a failure line and a
// pending request of the same unit all meet on it. NUL cannot occur in any of the three names.
export function unitKey(benchmark: string, itemId: string, condition: string): string {
  return `${benchmark}\u0000${itemId}\u0000${condition}`;
}
