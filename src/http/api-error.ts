/**
 * An error the API answers with: its status, a stable code, a message that tells the caller what to
 * fix, the extra body fields (a 429's limit and reset) and headers. Made only by the catalogue
 * (errors.ts); rendered by error-handler.ts.
 */
export class ApiError extends Error {
  override name = 'ApiError';
  readonly status: number;
  readonly code: string;
  readonly extra: Readonly<Record<string, unknown>>;
  readonly headers: Readonly<Record<string, string>>;

  constructor(
    status: number,
    code: string,
    message: string,
    extra: Record<string, unknown> = {},
    headers: Record<string, string> = {},
  ) {
    super(message);
    this.status = status;
    this.code = code;
    this.extra = extra;
    this.headers = headers;
  }
}
