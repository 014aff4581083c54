import { useId } from 'react'
import { PasswordCard } from '@/features/security/components/password-card'
import { SessionsCard } from '@/features/security/components/sessions-card'
import { TwoFactorCard } from '@/features/security/components/two-factor-card'
import { securityStrings } from '@/features/security/strings'

/** The Security section of /settings: two-factor login, sessions and the password change. */
export function SecuritySection() {
  const headingId = useId()
  return (
    <section aria-labelledby={headingId} className="space-y-4">
      <div className="space-y-1">
        <h2 id={headingId} className="text-lg font-semibold tracking-tight">
          {securityStrings.title}
        </h2>
        <p className="text-sm text-muted-foreground">{securityStrings.description}</p>
      </div>
      <TwoFactorCard />
      <SessionsCard />
      <PasswordCard />
    </section>
  )
}
