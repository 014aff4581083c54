import { within } from '@testing-library/react'

/**
 * The text of one column of a table's body rows, top to bottom (the header row is skipped).
 * `hidden: true` skips the visibility check, which is slow over a thousand rows.
 */
export function columnTexts(container: HTMLElement, column: number): (string | null | undefined)[] {
  const [, ...rows] = within(container).getAllByRole('row', { hidden: true })
  return rows.map((row) => (row instanceof HTMLTableRowElement ? row.cells[column]?.textContent : undefined))
}
