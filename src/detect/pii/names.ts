// The PII kinds `detect.pii` may turn on (default none).

export const PII_KINDS = ['payment-card', 'iban', 'email'] as const;
export type PiiKind = (typeof PII_KINDS)[number];
