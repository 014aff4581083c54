/**
 * Tables shown as cards on phones (`<Table phoneCards>`, index.css `[data-phone-cards]`): each
 * body cell carries its column's header text in `data-label`, which the phone layout prints
 * before the value. The labels follow the header as rendered, so a table keeps one source for
 * its column names.
 */

/** The header texts by column, expanding `colSpan`, from the table's last header row. */
export function columnLabels(table: HTMLTableElement): string[] {
  const row = table.tHead?.rows[table.tHead.rows.length - 1]
  if (!row) return []
  const labels: string[] = []
  for (const cell of Array.from(row.cells)) {
    const text = cell.textContent.trim()
    for (let span = 0; span < Math.max(1, cell.colSpan); span += 1) labels.push(text)
  }
  return labels
}

/** Sets `data-label` on every body cell to its column's header text (empty: no label shown). */
export function labelCells(table: HTMLTableElement): void {
  const labels = columnLabels(table)
  for (const body of Array.from(table.tBodies)) {
    for (const row of Array.from(body.rows)) {
      let column = 0
      for (const cell of Array.from(row.cells)) {
        const label = labels[column] ?? ''
        if (cell.getAttribute('data-label') !== label) cell.setAttribute('data-label', label)
        column += Math.max(1, cell.colSpan)
      }
    }
  }
}

/**
 * Keeps a table's cells labelled while its rows change; answers the function that stops
 * watching.
 */
export function watchCellLabels(table: HTMLTableElement): () => void {
  labelCells(table)
  const observer = new MutationObserver(() => {
    labelCells(table)
  })
  observer.observe(table, { childList: true, subtree: true, characterData: true })
  return () => {
    observer.disconnect()
  }
}
