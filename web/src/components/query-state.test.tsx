import { QueryClient, QueryClientProvider, useQuery } from '@tanstack/react-query'
import { render, screen } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import { QueryState } from '@/components/query-state'

const strings = {
  loading: 'Loading...',
  loadFailed: 'Failed to load rows',
  retry: 'Retry',
  empty: 'No rows yet',
}

function Rows({ load }: { load: () => Promise<string[]> }) {
  const query = useQuery({ queryKey: ['rows'], queryFn: load, retry: false })
  return (
    <QueryState query={query} strings={strings} isEmpty={(rows) => rows.length === 0}>
      {(rows) => (
        <ul aria-label="rows">
          {rows.map((row) => (
            <li key={row}>{row}</li>
          ))}
        </ul>
      )}
    </QueryState>
  )
}

function renderRows(load: () => Promise<string[]>) {
  render(
    <QueryClientProvider client={new QueryClient()}>
      <Rows load={load} />
    </QueryClientProvider>,
  )
}

describe('QueryState', () => {
  it('shows a status named by the loading text while the query is pending', () => {
    renderRows(() => new Promise(() => undefined))
    expect(screen.getByRole('status', { name: 'Loading...' })).toHaveTextContent('Loading...')
    expect(screen.queryByRole('list')).not.toBeInTheDocument()
  })

  it('shows the failure with its message, and Retry loads again', async () => {
    let calls = 0
    renderRows(() => {
      calls += 1
      return calls === 1 ? Promise.reject(new Error('Server down')) : Promise.resolve(['BTCUSDT'])
    })
    const alert = await screen.findByRole('alert')
    expect(alert).toHaveTextContent('Failed to load rows')
    expect(alert).toHaveTextContent('Server down')
    await userEvent.click(screen.getByRole('button', { name: 'Retry' }))
    expect(await screen.findByText('BTCUSDT')).toBeInTheDocument()
    expect(calls).toBe(2)
  })

  it('shows the empty text, not the rows, when the data is empty', async () => {
    renderRows(() => Promise.resolve([]))
    expect(await screen.findByText('No rows yet')).toBeInTheDocument()
    expect(screen.queryByRole('list')).not.toBeInTheDocument()
    expect(screen.queryByRole('status')).not.toBeInTheDocument()
  })
})
