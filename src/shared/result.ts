/** Every failure that crosses a boundary (IPC, HTTP, CLI) is one of these codes plus a sentence
 * that names the cause and the fix. */
export const errorCodes = [
  'bad_request',
  'unauthorized',
  'forbidden',
  'not_found',
  'conflict',
  'rate_limited',
  'unavailable',
  'keychain_unavailable',
  'upstream',
  'internal',
] as const
export type ErrorCode = (typeof errorCodes)[number]

/** Kept free of zod so the renderer bundle does not carry a schema library for a type. */
export interface ApiError {
  code: ErrorCode
  message: string
  detail?: unknown
}

export type Ok<T> = { ok: true; value: T }
export type Err<E = ApiError> = { ok: false; error: E }
export type Result<T, E = ApiError> = Ok<T> | Err<E>

export const ok = <T>(value: T): Ok<T> => ({ ok: true, value })
export const err = (code: ErrorCode, message: string, detail?: unknown): Err<ApiError> => ({
  ok: false,
  error: detail === undefined ? { code, message } : { code, message, detail },
})

/** Unwraps a result where failure would be a bug (tests, start-up after checks). */
export function unwrap<T>(result: Result<T, { message: string }>): T {
  if (!result.ok) throw new Error(result.error.message)
  return result.value
}
