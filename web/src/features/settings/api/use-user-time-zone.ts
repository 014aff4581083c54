import { browserTimeZone } from '@/lib/user-time'
import { useBotSettings } from '@/features/settings/api/get-bot-settings'

/** The zone the app's times are shown in: the user's `user_timezone` setting (the browser's until it is read). */
export function useUserTimeZone(): string {
  return useBotSettings().data?.user_timezone ?? browserTimeZone()
}
