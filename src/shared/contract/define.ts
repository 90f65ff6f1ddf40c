import type { z } from 'zod'

export interface MethodSpec<Req extends z.ZodType = z.ZodType, Res extends z.ZodType = z.ZodType> {
  summary: string
  request: Req
  response: Res
}

export function method<Req extends z.ZodType, Res extends z.ZodType>(
  summary: string,
  request: Req,
  response: Res,
): MethodSpec<Req, Res> {
  return { summary, request, response }
}
