import pkg from '../../package.json'

export const version: string = pkg.version
/** Set at build time by CI or `npm run dist`; "dev" for local builds. */
export const build: string = process.env.WATCHDESK_BUILD ?? 'dev'
