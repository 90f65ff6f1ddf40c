/** Account names under the keychain service. Each kind of secret has its own prefix so a listing
 * can be split without reading the values. */
export const accounts = {
  apiKey: (name: string) => `api-key:${name}`,
  webhookSecret: (endpointId: string) => `webhook-secret:${endpointId}`,
  projectUid: 'project-uid',
  sourceToken: (name: string) => `source-token:${name}`,
  forwardSecret: (target: string) => `forward-secret:${target}`,
  /** An alert channel's URL (webhook, Slack) or SMTP password (email). */
  alertChannel: (name: string) => `alert-channel:${name}`,
  isApiKey: (account: string) => account.startsWith('api-key:'),
  isWebhookSecret: (account: string) => account.startsWith('webhook-secret:'),
  nameOf: (account: string) => account.slice(account.indexOf(':') + 1),
}
