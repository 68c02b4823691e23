export const ACCOUNT_PREFIX = '/api/v1/account';

/** Every path of the account API and the methods it answers (others get 405 with Allow). */
export const ACCOUNT_PATHS: Readonly<Record<string, readonly string[]>> = {
  [ACCOUNT_PREFIX]: ['GET', 'HEAD', 'OPTIONS'],
  [`${ACCOUNT_PREFIX}/signup`]: ['POST', 'OPTIONS'],
  [`${ACCOUNT_PREFIX}/login`]: ['POST', 'OPTIONS'],
  [`${ACCOUNT_PREFIX}/logout`]: ['POST', 'OPTIONS'],
  [`${ACCOUNT_PREFIX}/keys`]: ['GET', 'HEAD', 'POST', 'OPTIONS'],
  [`${ACCOUNT_PREFIX}/keys/:id`]: ['DELETE', 'OPTIONS'],
};
