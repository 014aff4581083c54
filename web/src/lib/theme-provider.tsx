import { useCallback, useEffect, useMemo, useState, type ReactNode } from 'react'
import {
  ThemeContext,
  applyTheme,
  nextTheme,
  readStoredTheme,
  resolveTheme,
  storeTheme,
  SYSTEM_DARK_QUERY,
  type Theme,
} from '@/lib/theme'
import { useMediaQuery } from '@/lib/use-media-query'

export function ThemeProvider({ children }: { children: ReactNode }) {
  const [theme, setThemeState] = useState<Theme>(readStoredTheme)
  const prefersDark = useMediaQuery(SYSTEM_DARK_QUERY)
  const resolvedTheme = resolveTheme(theme, prefersDark)

  useEffect(() => {
    applyTheme(resolvedTheme)
  }, [resolvedTheme])

  const setTheme = useCallback((value: Theme) => {
    storeTheme(value)
    setThemeState(value)
  }, [])

  const cycleTheme = useCallback(() => {
    setTheme(nextTheme(theme))
  }, [setTheme, theme])

  const value = useMemo(
    () => ({ theme, resolvedTheme, setTheme, cycleTheme }),
    [theme, resolvedTheme, setTheme, cycleTheme],
  )
  return <ThemeContext value={value}>{children}</ThemeContext>
}
