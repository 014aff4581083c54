import { Badge } from '@/components/ui/badge'

/** Spec section 2: red for error, yellow for warning, green otherwise. */
export function LogLevelBadge({ level }: { level: string }) {
  const normalized = level.toLowerCase()
  const variant = normalized === 'error' ? 'destructive' : normalized === 'warning' ? 'warning' : 'success'
  return (
    <Badge variant={variant} className="uppercase">
      {level}
    </Badge>
  )
}
