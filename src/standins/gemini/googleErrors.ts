// Google's error bodies as the stand-in writes them: the error model of https://google.aip.dev/193 (`{"error":
// {"code", "message", "status", "details"}}`), the codes of https://ai.google.dev/gemini-api/docs/troubleshooting,
// RetryInfo (https://cloud.google.com/php/docs/reference/common-protos/latest/Rpc.RetryInfo: `retryDelay` a
// Duration in its JSON form, "37s") and ErrorInfo's reason API_KEY_INVALID for a wrong key (SPEC-AVTIME-DATA §3b:
// a wrong key is 400 INVALID_ARGUMENT, not 401). The messages are as Google words them where we know the words
// (the troubleshooting page, the SPEC's facts); where we do not, they say what the stand-in checked.

export class GoogleHttpError extends Error {
  constructor(
    readonly code: number,
    readonly status: string,
    message: string,
    readonly details: Record<string, unknown>[] = [],
  ) {
    super(message);
  }
  body(): string {
    return JSON.stringify({
      error: { code: this.code, message: this.message, status: this.status, ...(this.details.length ? { details: this.details } : {}) },
    });
  }
}

export const badKey = () =>
  new GoogleHttpError(400, 'INVALID_ARGUMENT', 'API key not valid. Please pass a valid API key.', [
    { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com' },
  ]);

export const rateLimited = (retryDelay: string | undefined) =>
  new GoogleHttpError(
    429,
    'RESOURCE_EXHAUSTED',
    'You exceeded your current quota, please check your plan and billing details.',
    retryDelay ? [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay }] : [],
  );

export const overloaded = () => new GoogleHttpError(503, 'UNAVAILABLE', 'The model is overloaded. Please try again later.');

export const invalid = (message: string) => new GoogleHttpError(400, 'INVALID_ARGUMENT', message);

export const notFound = (what: string) => new GoogleHttpError(404, 'NOT_FOUND', `${what} not found.`);

export const notActive = (name: string) =>
  new GoogleHttpError(400, 'FAILED_PRECONDITION', `The File ${name.replace(/^files\//, '')} is not in an ACTIVE state and usage is not allowed.`);
