/** UI strings of the trading settings, verbatim from the spec (section 2). */
export const settingsStrings = {
  title: 'Настройки торговли',
} as const
