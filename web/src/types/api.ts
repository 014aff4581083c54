/** Shapes shared by several features. Field names follow the server's JSON. */

export type User = {
  id: number
  username: string
}

/** Every error answer of the server: `{"error": "<sentence>"}`, plus `fields` on 400 validation errors. */
export type ErrorBody = {
  error?: string
  fields?: Record<string, string[]>
}
