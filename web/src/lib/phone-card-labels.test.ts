import { describe, expect, it } from 'vitest'
import { columnLabels, labelCells, watchCellLabels } from '@/lib/phone-card-labels'

function table(html: string): HTMLTableElement {
  const holder = document.createElement('div')
  holder.innerHTML = html
  document.body.append(holder)
  const found = holder.querySelector('table')
  if (!found) throw new Error('no table')
  return found
}

function rowAt(body: HTMLTableSectionElement, index: number): HTMLTableRowElement {
  const row = body.rows[index]
  if (!row) throw new Error(`no row ${String(index)}`)
  return row
}

const labelsOf = (row: HTMLTableRowElement) => Array.from(row.cells).map((cell) => cell.dataset.label)

describe('phone card labels', () => {
  it('reads the header texts by column, a colSpan counting for each column it spans', () => {
    const t = table(
      '<table><thead><tr><th> Symbol </th><th colspan="2">Price</th><th></th></tr></thead><tbody></tbody></table>',
    )
    expect(columnLabels(t)).toEqual(['Symbol', 'Price', 'Price', ''])
  })

  it('labels every body cell with its column, past cells that span columns', () => {
    const t = table(
      '<table><thead><tr><th>A</th><th>B</th><th>C</th><th></th></tr></thead>' +
        '<tbody><tr><td>1</td><td>2</td><td>3</td><td><button>Close</button></td></tr>' +
        '<tr><td colspan="2">wide</td><td>3</td><td></td></tr></tbody></table>',
    )
    labelCells(t)
    const [first, second] = Array.from(t.tBodies[0]?.rows ?? [])
    if (!first || !second) throw new Error('rows missing')
    expect(labelsOf(first)).toEqual(['A', 'B', 'C', ''])
    expect(labelsOf(second)).toEqual(['A', 'C', ''])
  })

  it('a table without a header leaves its cells unlabelled', () => {
    const t = table('<table><tbody><tr><td>1</td></tr></tbody></table>')
    labelCells(t)
    expect(t.querySelector('td')?.dataset.label).toBe('')
  })

  it('labels rows added later, until it stops watching', async () => {
    const t = table('<table><thead><tr><th>A</th><th>B</th></tr></thead><tbody></tbody></table>')
    const stop = watchCellLabels(t)
    const body = t.tBodies[0]
    if (!body) throw new Error('no body')
    body.insertAdjacentHTML('beforeend', '<tr><td>1</td><td>2</td></tr>')
    await Promise.resolve()
    await new Promise((wake) => setTimeout(wake, 0))
    expect(labelsOf(rowAt(body, 0))).toEqual(['A', 'B'])
    stop()
    body.insertAdjacentHTML('beforeend', '<tr><td>3</td><td>4</td></tr>')
    await new Promise((wake) => setTimeout(wake, 0))
    expect(labelsOf(rowAt(body, 1))).toEqual([undefined, undefined])
  })
})
