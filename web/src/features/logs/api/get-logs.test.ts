import { describe, expect, it } from 'vitest'
import { LOGS_CAP } from '@/lib/live/constants'
import { createQueryClient } from '@/lib/query-client'
import type { LogEntry, LogLevel } from '@/types/api'
import { logsQueryOptions, prependLog, withLogFirst } from '@/features/logs/api/get-logs'

const entry = (id: number, level: LogLevel = 'info'): LogEntry => ({
  id,
  timestamp: '2026-11-22T04:00:00Z',
  level,
  message: `entry ${id}`,
})

describe('log list rules', () => {
  it('prepends, caps at 1000 and skips an id already listed', () => {
    expect(LOGS_CAP).toBe(1000)
    const full = Array.from({ length: 1000 }, (_, i) => entry(1000 - i))
    const next = withLogFirst(full, entry(1001))
    expect(next).toHaveLength(1000)
    expect(next[0]?.id).toBe(1001)
    expect(next.at(-1)?.id).toBe(2)
    expect(withLogFirst([entry(2), entry(1)], entry(1))).toEqual([entry(2), entry(1)])
  })

  it("puts a new_log in the 'all' list and its level's list only, and creates no list", () => {
    const queryClient = createQueryClient()
    const key = (level: 'all' | LogLevel) => logsQueryOptions(level).queryKey
    queryClient.setQueryData(key('all'), [entry(1)])
    queryClient.setQueryData(key('warning'), [])
    queryClient.setQueryData(key('error'), [entry(1, 'error')])

    prependLog(queryClient, entry(2, 'warning'))

    expect(queryClient.getQueryData(key('all'))?.map((e) => e.id)).toEqual([2, 1])
    expect(queryClient.getQueryData(key('warning'))?.map((e) => e.id)).toEqual([2])
    expect(queryClient.getQueryData(key('error'))?.map((e) => e.id)).toEqual([1])
    expect(queryClient.getQueryData(key('info'))).toBeUndefined()
  })
})
