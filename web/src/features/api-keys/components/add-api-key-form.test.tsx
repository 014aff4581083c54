import { QueryClientProvider } from '@tanstack/react-query'
import { render, screen, waitFor } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it } from 'vitest'
import { Toaster } from '@/components/ui/toaster'
import { createQueryClient } from '@/lib/query-client'
import { ThemeProvider } from '@/lib/theme-provider'
import { apiKeyRecord } from '@/testing/fixtures'
import { stubServer } from '@/testing/render-app'
import { AddApiKeyForm } from '@/features/api-keys/components/add-api-key-form'

function renderForm() {
  const queryClient = createQueryClient()
  render(
    <ThemeProvider>
      <QueryClientProvider client={queryClient}>
        <AddApiKeyForm />
        <Toaster />
      </QueryClientProvider>
    </ThemeProvider>,
  )
  return queryClient
}

describe('add API key form', () => {
  it('calls no fetch at all when a field is empty', async () => {
    const fetchMock = stubServer({})
    renderForm()
    await userEvent.click(screen.getByRole('button', { name: 'Add API Key' }))
    expect(await screen.findByText('Please fill in all fields')).toBeInTheDocument()
    await userEvent.type(screen.getByLabelText('API Secret'), 'secret-only')
    await userEvent.click(screen.getByRole('button', { name: 'Add API Key' }))
    expect(fetchMock).not.toHaveBeenCalled()
  })

  it('keeps the key and the secret nowhere after a successful submit', async () => {
    stubServer({ 'POST /api/api-keys/': () => ({ status: 201, body: apiKeyRecord() }) })
    const queryClient = renderForm()
    await userEvent.type(screen.getByLabelText('API Key'), 'the-key-123')
    await userEvent.type(screen.getByLabelText('API Secret'), 'the-secret-456')
    await userEvent.click(screen.getByRole('button', { name: 'Add API Key' }))
    expect(await screen.findByText('API key added successfully')).toBeInTheDocument()
    expect(screen.getByLabelText('API Key')).toHaveValue('')
    expect(screen.getByLabelText('API Secret')).toHaveValue('')
    await waitFor(() => {
      expect(
        JSON.stringify(
          queryClient
            .getMutationCache()
            .getAll()
            .map((m) => m.state),
        ),
      ).not.toContain('the-secret-456')
    })
    expect(
      JSON.stringify(
        queryClient
          .getQueryCache()
          .getAll()
          .map((q) => q.state),
      ),
    ).not.toContain('the-secret-456')
  })
})
