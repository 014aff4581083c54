import { SecuritySection } from '@/features/security/components/security-section'
import { SettingsPage } from '@/features/settings/components/settings-page'

/**
 * /settings: the settings page with the Security section (issue 31) below its cards. The app
 * composes the two features; neither imports the other's components (eslint.config.js).
 */
export function SettingsRoute() {
  return <SettingsPage below={<SecuritySection />} />
}
