import { ShieldCheck } from 'lucide-react'
import { useId } from 'react'
import { Link } from 'react-router'
import { auditLogStrings } from '@/features/audit-log/strings'
import { PasswordCard } from '@/features/security/components/password-card'
import { SessionsCard } from '@/features/security/components/sessions-card'
import { TwoFactorCard } from '@/features/security/components/two-factor-card'
import { securityStrings } from '@/features/security/strings'

/**
 * The Security section of /settings: two-factor login, sessions and the password change, and
 * the link to the audit log.
 */
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
      <p className="text-sm text-muted-foreground">
        <ShieldCheck aria-hidden="true" className="mr-2 inline size-4 align-text-bottom text-primary" />
        <Link to="/audit-log" className="font-medium text-primary underline-offset-4 hover:underline">
          {auditLogStrings.securityLink}
        </Link>{' '}
        <span>{auditLogStrings.securityLinkHelp}</span>
      </p>
    </section>
  )
}
