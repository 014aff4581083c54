import { useState } from 'react'
import { ChevronLeft, ChevronRight, Download } from 'lucide-react'
import { PageHeader } from '@/components/page-header'
import { EmptyState, ErrorState, LoadingState } from '@/components/query-state'
import { Button } from '@/components/ui/button'
import { Card, CardContent } from '@/components/ui/card'
import { VenueBadge } from '@/components/venue-badge'
import { exportUrl, useSearchTrades } from '@/features/trades/api/search-trades'
import { TradesFilters } from '@/features/trades/components/trades-filters'
import { TradesList } from '@/features/trades/components/trades-list'
import { tradesStrings as s } from '@/features/trades/strings'
import { DEFAULT_FILTER, type TradesFilter } from '@/features/trades/utils/trades-filter'
import { serverMessage } from '@/lib/api-client'
import { useDebouncedValue } from '@/lib/use-debounced-value'
import { DESKTOP_QUERY, useMediaQuery } from '@/lib/use-media-query'
import { formatCount } from '@/lib/format-number'

type PageRef = { cursor: string | null; before: number }
const FIRST_PAGE: PageRef = { cursor: null, before: 0 }

/**
 * /trades (issue 33 point 2): every trade of the account the bot trades on now, filtered, sorted
 * and paged by the server (GET /api/trades/search/, a cursor per page; Previous goes back through
 * the cursors already seen), each row opening its chart; Export CSV downloads every trade the
 * filter matches.
 */
export function TradesPage() {
  const [filter, setFilter] = useState<TradesFilter>(DEFAULT_FILTER)
  const [pageSize, setPageSize] = useState(50)
  // Each page reached, its cursor (null: the first) and how many rows came before it; the last
  // is the page shown.
  const [pages, setPages] = useState<PageRef[]>([FIRST_PAGE])
  // Typing a symbol asks the server once the typing stops.
  const applied = JSON.parse(useDebouncedValue(JSON.stringify(filter), 300)) as TradesFilter
  const current = pages[pages.length - 1] ?? FIRST_PAGE
  const search = useSearchTrades(applied, pageSize, current.cursor)
  const desktop = useMediaQuery(DESKTOP_QUERY)
  const page = search.data
  const zone = page?.time_zone ?? Intl.DateTimeFormat().resolvedOptions().timeZone
  const first = current.before + 1

  const restart = () => {
    setPages([FIRST_PAGE])
  }

  return (
    <div className="min-w-0 space-y-6">
      <PageHeader
        title={s.title}
        description={s.description(zone)}
        actions={
          <div className="flex flex-wrap items-center gap-3">
            {page ? (
              <span title={s.accountHint}>
                <VenueBadge venue={page.venue} />
              </span>
            ) : null}
            <Button asChild variant="outline" size="sm">
              <a href={exportUrl(applied)} download title={s.exportHint}>
                <Download aria-hidden="true" />
                {s.exportCsv}
              </a>
            </Button>
          </div>
        }
      />
      <Card>
        <CardContent className="p-3 sm:p-4">
          <TradesFilters
            filter={filter}
            onChange={(next) => {
              setFilter(next)
              restart()
            }}
            pageSize={pageSize}
            onPageSize={(size) => {
              setPageSize(size)
              restart()
            }}
          />
        </CardContent>
      </Card>
      <Card>
        <CardContent className="space-y-4 p-2 sm:p-4">
          {search.isError ? (
            <ErrorState
              title={s.loadFailed}
              message={serverMessage(search.error)}
              retry={{ label: s.retry, busy: search.isFetching, onRetry: () => void search.refetch() }}
            />
          ) : !page ? (
            <LoadingState label={s.loading} />
          ) : page.results.length === 0 ? (
            <EmptyState text={s.empty} />
          ) : (
            <>
              <TradesList trades={page.results} timeZone={page.time_zone} desktop={desktop} />
              <nav aria-label={s.pagination} className="flex flex-wrap items-center justify-between gap-3">
                <p className="text-sm text-muted-foreground tabular-nums" aria-live="polite">
                  {s.range(
                    formatCount(first),
                    formatCount(first + page.results.length - 1),
                    formatCount(page.count),
                  )}
                </p>
                <div className="flex flex-wrap gap-2">
                  <Button
                    variant="outline"
                    size="sm"
                    disabled={pages.length === 1 || search.isFetching}
                    onClick={() => {
                      setPages((old) => old.slice(0, -1))
                    }}
                  >
                    <ChevronLeft aria-hidden="true" />
                    {s.previous}
                  </Button>
                  <Button
                    variant="outline"
                    size="sm"
                    disabled={!page.next_cursor || search.isFetching}
                    onClick={() => {
                      const next = page.next_cursor
                      const before = current.before + page.results.length
                      if (next) setPages((old) => [...old, { cursor: next, before }])
                    }}
                  >
                    {s.next}
                    <ChevronRight aria-hidden="true" />
                  </Button>
                </div>
              </nav>
            </>
          )}
        </CardContent>
      </Card>
    </div>
  )
}
