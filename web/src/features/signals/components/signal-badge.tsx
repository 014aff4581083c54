import { Badge } from '@/components/ui/badge'
import { signalKind, type SignalKind } from '@/features/signals/utils/signal-value'
import { signalsStrings as s } from '@/features/signals/strings'

const variants = {
  STRONG_BUY: 'success',
  STRONG_SELL: 'destructive',
  NEUTRAL: 'secondary',
} as const satisfies Record<SignalKind, 'success' | 'destructive' | 'secondary'>

/** Spec section 2: STRONG_BUY green, STRONG_SELL red, NEUTRAL (and anything else) grey; the value as sent. */
export function SignalBadge({ value }: { value: string }) {
  const kind = signalKind(value)
  return (
    <Badge variant={variants[kind]} data-signal={kind} className="font-mono tracking-wide">
      {value || s.neutral}
    </Badge>
  )
}
