/** UI strings of the logs feature, verbatim from the spec (section 2). */
export const logsStrings = {
  title: 'Trading Logs',
} as const
