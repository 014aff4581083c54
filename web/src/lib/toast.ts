import { toast, type ExternalToast } from 'sonner'

/**
 * The one way features show toasts (spec section 9): 4 s for errors and plain toasts, 2 s for
 * success. The <Toaster> (components/ui/toaster.tsx) sits top-right.
 */

export const TOAST_DURATION_MS = 4000
export const TOAST_ERROR_DURATION_MS = 4000
export const TOAST_SUCCESS_DURATION_MS = 2000

type Options = Omit<ExternalToast, 'duration'>

export const notify = {
  message: (title: string, options?: Options) => toast(title, { ...options, duration: TOAST_DURATION_MS }),
  success: (title: string, options?: Options) =>
    toast.success(title, { ...options, duration: TOAST_SUCCESS_DURATION_MS }),
  error: (title: string, options?: Options) =>
    toast.error(title, { ...options, duration: TOAST_ERROR_DURATION_MS }),
  warning: (title: string, options?: Options) =>
    toast.warning(title, { ...options, duration: TOAST_DURATION_MS }),
  dismiss: (id?: string | number) => toast.dismiss(id),
}
