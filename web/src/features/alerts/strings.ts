/** The alert banner's words (docs/alerts.md). Each alert's title, detail and action come from the server. */
export const alertStrings = {
  since: (when: string) => `Since ${when}`,
  botAction: 'What the bot does:',
  region: 'Alerts',
} as const
