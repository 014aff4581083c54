import { toast } from 'sonner'
import { describe, expect, it, vi } from 'vitest'
import { notify } from '@/lib/toast'

vi.mock('sonner', () => ({
  toast: Object.assign(vi.fn(), { success: vi.fn(), error: vi.fn(), warning: vi.fn(), dismiss: vi.fn() }),
}))

describe('notify', () => {
  it('shows errors, warnings and plain toasts for 4 s and successes for 2 s', () => {
    notify.error('Failed to load API keys')
    notify.warning('This key has no IP allow-list')
    notify.message('Please fill in all fields')
    notify.success('Bot started', { description: 'Trading bot has been started or stopped successfully' })
    expect(toast.error).toHaveBeenCalledWith('Failed to load API keys', { duration: 4000 })
    expect(toast.warning).toHaveBeenCalledWith('This key has no IP allow-list', { duration: 4000 })
    expect(toast).toHaveBeenCalledWith('Please fill in all fields', { duration: 4000 })
    expect(toast.success).toHaveBeenCalledWith('Bot started', {
      description: 'Trading bot has been started or stopped successfully',
      duration: 2000,
    })
  })
})
