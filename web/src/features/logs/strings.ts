import type { LogLevelFilter } from '@/features/logs/api/get-logs'

/** UI strings of the logs feature, verbatim from the spec (section 2). */
export const logsStrings = {
  title: 'Trading Logs',
  levelOptions: {
    all: 'All Levels',
    info: 'Info',
    warning: 'Warning',
    error: 'Error',
  } satisfies Record<LogLevelFilter, string>,
  time: 'Time',
  level: 'Level',
  message: 'Message',

  // Not worded by the spec.
  description: "The bot's log, newest first, updated live.",
  levelLabel: 'Level',
  empty: 'No logs found',
  loading: 'Loading...',
  loadFailed: 'Failed to load logs',
  retry: 'Retry',
} as const
