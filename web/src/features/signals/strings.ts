/** UI strings of the signals feature, verbatim from the spec (section 2). */
export const signalsStrings = {
  title: 'Trading Signals',
} as const
