/** UI strings of the statistics page with the period filter (spec section 2). */
export const statsStrings = {
  title: 'Statistics',
} as const
