// Applies the stored theme before the first paint, so a reload never flashes the other theme.
// Same rule as src/lib/theme.ts: localStorage "theme" is light | dark | system, default dark.
// A separate file rather than an inline script: the server's Content-Security-Policy allows
// scripts from 'self' only.
;(function () {
  try {
    var theme = localStorage.getItem('theme')
    if (theme !== 'light' && theme !== 'dark' && theme !== 'system') theme = 'dark'
    var dark =
      theme === 'dark' || (theme === 'system' && window.matchMedia('(prefers-color-scheme: dark)').matches)
    document.documentElement.classList.toggle('dark', dark)
    document.documentElement.style.colorScheme = dark ? 'dark' : 'light'
  } catch {
    // Storage unavailable: keep the default dark class of index.html.
  }
})()
