import { z } from 'zod'
import { isMethodName, methods } from '../../shared/contract'
import type { MethodName, ParsedRequestOf, ResponseOf } from '../../shared/contract'
import { err } from '../../shared/result'
import type { Result } from '../../shared/result'
import type { Logger } from '../log'

export type Handler<K extends MethodName> = (request: ParsedRequestOf<K>) => Promise<Result<ResponseOf<K>>>
export type ApiHandlers = { [K in MethodName]: Handler<K> }

/** The boundary both transports go through: unknown names and invalid requests become error values,
 * a thrown exception (a bug) becomes `internal` and is logged. */
export async function dispatch(
  handlers: ApiHandlers,
  name: string,
  rawRequest: unknown,
  log: Logger,
): Promise<Result<unknown>> {
  if (!isMethodName(name)) return err('not_found', `There is no API method named "${name}".`)
  const parsed = methods[name].request.safeParse(rawRequest ?? {})
  if (!parsed.success) {
    return err('bad_request', `Invalid request for ${name}: ${z.prettifyError(parsed.error)}`)
  }
  try {
    const handler = handlers[name] as (request: unknown) => Promise<Result<unknown>>
    return await handler(parsed.data)
  } catch (error) {
    log.error('handler threw', { method: name, error })
    return err('internal', `watchdesk failed inside ${name}; the log has the details.`)
  }
}
