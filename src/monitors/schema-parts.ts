import { Type } from 'typebox';
import { commonErrorResponses } from '../http/schemas.ts';

export const iso = (description: string) => Type.String({ format: 'date-time', description });
export const nullableIso = (description: string) => Type.Union([iso(description), Type.Null()], { description });

export const ACCESS = `Monitors belong to an account: an API key (\`Authorization: Bearer\`) or the dashboard's session (with its
X-CSRF-Token on changes); without either, 401. Requests count against the caller's rate limits like any other; the
runs count nothing.`;

export const security: { [scheme: string]: string[] }[] = [{ apiKey: [] }, { sessionCookie: [], csrfToken: [] }];
export const MonitorParams = Type.Object({
  id: Type.String({ pattern: '^[0-9a-f]{24}$', description: 'The monitor id.' }),
});
export const notFound = { 404: { ...commonErrorResponses[400], description: 'No monitor of yours has this id.' } };
export const tags = ['monitors'];
