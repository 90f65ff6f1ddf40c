/** The command line's terminal escaping lives in src/shared/inert.ts (one copy): the payments
 * client's failure sentences quote a service's text through the same `inert`. */
export { inert, readInert, terminalSafe } from '../../shared/inert'
