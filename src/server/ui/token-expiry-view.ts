import { badge } from './html.js';

/** Days before its expiry from which a target's token is named on its card. */
export const TOKEN_WARN_DAYS = 7;

/** The card's line for vigil's own token on a target: only when an expiry is reported and near. */
export function tokenLine(daysLeft: number | null): string {
  if (daysLeft === null || daysLeft >= TOKEN_WARN_DAYS) return '';
  const text = daysLeft < 0 ? 'token expired' : daysLeft === 0 ? 'token expires within a day' : `token expires in ${daysLeft} day${daysLeft > 1 ? 's' : ''}`;
  return `<p class="token-expiry">${badge(text, daysLeft < 1 ? 'bad' : 'warn')}</p>`;
}
