/** UI strings of the API keys feature (spec section 2). */
export const apiKeysStrings = {
  title: 'API Keys',
} as const
