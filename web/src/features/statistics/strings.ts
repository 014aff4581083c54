/** UI strings of the live statistics page, verbatim from the spec (section 2). */
export const statisticsStrings = {
  title: 'Live Trading Statistics',
} as const
