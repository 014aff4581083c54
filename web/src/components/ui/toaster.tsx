import { Toaster as Sonner } from 'sonner'
import { useTheme } from '@/lib/use-theme'
import { TOAST_DURATION_MS } from '@/lib/toast'

/** Sonner's host, top-right (spec section 2), themed like the app. */
export function Toaster() {
  const { resolvedTheme } = useTheme()
  return (
    <Sonner
      position="top-right"
      theme={resolvedTheme}
      duration={TOAST_DURATION_MS}
      closeButton
      richColors
      toastOptions={{ className: 'font-sans' }}
    />
  )
}
