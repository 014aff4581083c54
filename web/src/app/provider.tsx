import { QueryClientProvider } from '@tanstack/react-query'
import { useState, type ReactNode } from 'react'
import { Toaster } from '@/components/ui/toaster'
import { LanguageProvider } from '@/i18n/language-provider'
import { createQueryClient } from '@/lib/query-client'
import { ThemeProvider } from '@/lib/theme-provider'

export function AppProvider({ children }: { children: ReactNode }) {
  const [queryClient] = useState(createQueryClient)
  return (
    <ThemeProvider>
      <QueryClientProvider client={queryClient}>
        <LanguageProvider>
          {children}
          <Toaster />
        </LanguageProvider>
      </QueryClientProvider>
    </ThemeProvider>
  )
}
