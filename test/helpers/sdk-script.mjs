// An ordinary OpenAI SDK app: it reads OPENAI_BASE_URL from the environment like any app would. Used by
// `ficta run` tests and the README example. Prints the model's answer, then what an untokened request gets.
import OpenAI from 'openai';

const client = new OpenAI({ apiKey: process.env.OPENAI_API_KEY ?? 'test-key', maxRetries: 0 });
const r = await client.chat.completions.create({ model: 'gpt-x', messages: [{ role: 'user', content: process.env.PROMPT ?? 'hello' }] });
console.log(r.choices[0].message.content);
const open = await fetch(`${new URL(process.env.OPENAI_BASE_URL).origin}/openai/v1/chat/completions`, { method: 'POST', body: '{}' });
console.log('without token:', open.status);
process.exit(Number(process.env.EXIT_CODE ?? 0));
