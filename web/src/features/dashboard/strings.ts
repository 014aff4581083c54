/** UI strings of the dashboard, verbatim from the spec (section 2). */
export const dashboardStrings = {
  title: 'Dashboard',
  subtitle: 'Welcome back to your trading dashboard',
} as const
