/** UI strings of the auth feature, verbatim from the spec (sections 2 and 8). */
export const authStrings = {
  /** Placeholder while the stored session is checked. */
  loading: 'Загрузка...',
  /** Login heading ("Sign in"). */
  heading: 'Вход',
  usernameLabel: 'Имя пользователя',
  passwordLabel: 'Пароль',
  submit: 'Войти',
  /** Login failure. */
  invalidCredentials: 'Неверный логин или пароль',
  // Not in the spec (it only says both fields are required); worded to match the labels.
  usernameRequired: 'Введите имя пользователя',
  passwordRequired: 'Введите пароль',
  productName: 'Signal Desk',
  productTagline: 'Automated futures trading on signals',
} as const
