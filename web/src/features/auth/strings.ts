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
  // The second step of a login with two-factor login on (issue 31); not worded by the spec.
  codeLabel: 'Код подтверждения',
  codeHint: 'Введите 6-значный код из приложения-аутентификатора или один из кодов восстановления.',
  codeRequired: 'Введите код',
  invalidCode: 'Неверный или уже использованный код',
  confirm: 'Подтвердить',
  back: 'Назад',
  productName: 'Signal Desk',
  productTagline: 'Automated futures trading on signals',
} as const
