/**
 * UI strings of the API keys page, verbatim from the spec (sections 2, 5 and 8). The exchange,
 * Deactivate and the delete confirmation are not in the spec; their strings are marked below.
 */
export const apiKeysStrings = {
  title: 'API Keys',
  description:
    'Exchange keys the bot trades with. Key and secret are encrypted on the server and never shown again.',

  addTitle: 'Add New API Key',
  addDescription: 'Demo keys trade on the exchange demo environment, real keys with real funds.',
  keyLabel: 'API Key',
  secretLabel: 'API Secret',
  modeLabel: 'Mode',
  demo: 'Demo',
  real: 'Real',
  add: 'Add API Key',
  adding: 'Adding...',

  listTitle: 'Existing API Keys',
  listDescription: 'The active key is the one the bot uses.',
  active: 'Active',
  inactive: 'Inactive',
  added: 'Added',
  setActive: 'Set Active',
  delete: 'Delete',
  empty: 'No API keys found',
  loading: 'Loading...',
  retry: 'Retry',

  /** Toasts (spec section 8). */
  fillAllFields: 'Please fill in all fields',
  loadFailed: 'Failed to load API keys',
  addedToast: 'API key added successfully',
  addFailed: 'Failed to add API key',
  deletedToast: 'API key deleted successfully',
  deleteFailed: 'Failed to delete API key',
  activatedToast: 'API key set as active',
  activateFailed: 'Failed to set active API key',

  // Not worded by the spec: the exchange of a key, Deactivate and the delete confirmation.
  exchangeLabel: 'Exchange',
  bybit: 'Bybit',
  paper: 'Paper',
  deactivate: 'Deactivate',
  deactivatedToast: 'API key deactivated: the bot now trades on your paper account',
  deactivateFailed: 'Failed to deactivate API key',
  deleteTitle: 'Delete this API key?',
  deleteDescription: (label: string, added: string) =>
    `The ${label} key added ${added} is removed from Signal Desk. To use it again, add it again with its secret.`,
  deleteConfirm: 'Delete key',
  cancel: 'Cancel',

  // Not worded by the spec (issue 31 point 4): each key's permissions and IP restriction as
  // the exchange reported them, and the warning of a key bound to no IP address (the server's
  // sentence is shown as it comes).
  permissionsLabel: 'Permissions',
  permissionsNone: 'None',
  permissionsNotChecked: 'Not checked yet: read from Bybit at Set Active',
  permissionsNotApplicable: 'Not applicable (paper key)',
  checkedAt: (date: string) => `Checked ${date}`,
  noIpRestriction: 'No IP restriction',
  ipRestricted: (ips: string) => `IP: ${ips}`,
  noIpWarningTitle: 'This key has no IP allow-list',
} as const
