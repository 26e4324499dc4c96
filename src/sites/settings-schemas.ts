/**
 * The documented shape of each settings group, as JSON Schema 2020-12. The API stores each group as
 * a string (SPEC.md) and keeps accepting any string; these schemas describe what the dashboard's
 * forms write and what it checks before a save. No imports, so the dashboard builds its forms and
 * its validator from the same values the server publishes at /api/v1/settings-schemas.
 *
 * Every object allows properties it does not name (additionalProperties left open): keys written by
 * an integration or a later version survive an edit in the dashboard instead of failing it.
 * Validation uses `pattern`, never `format` alone, so any 2020-12 validator reaches the same verdict;
 * `format` stays as a hint for form inputs and readers.
 */

const HEX_COLOR = { type: 'string', pattern: '^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$', maxLength: 7 } as const;
const EMAIL = { type: 'string', format: 'email', pattern: '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$', maxLength: 254 } as const;
const HTTP_URL = { type: 'string', format: 'uri', pattern: '^https?://[^\\s]+$', maxLength: 2048 } as const;

export const SETTINGS_SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema';

export const AI_SETTINGS_SCHEMA = {
  $schema: SETTINGS_SCHEMA_DIALECT,
  $id: 'urn:siteward:settings:ai_settings',
  title: 'AI assistant',
  description: 'How the assistant answers visitors: the model, its instructions, its tone and when it hands a conversation to a person.',
  type: 'object',
  properties: {
    model: { title: 'Model', description: 'The language model that writes answers, as your AI provider names it.', type: 'string', maxLength: 100, examples: ['gpt-4o-mini'] },
    instructions: {
      title: 'Instructions',
      description: 'What the assistant should know and how it should behave, in plain words. Sent with every conversation.',
      type: 'string',
      maxLength: 8000,
    },
    tone: { title: 'Tone', description: 'The voice of the answers.', type: 'string', enum: ['friendly', 'professional', 'concise', 'playful'] },
    language: {
      title: 'Answer language',
      description: '"auto" answers in the visitor\'s language; otherwise a language tag such as en or de-CH.',
      type: 'string',
      pattern: '^(?:auto|[a-zA-Z]{2,3}(?:-[a-zA-Z0-9]{2,8})*)$',
      maxLength: 35,
    },
    temperature: { title: 'Creativity', description: 'From 0 (the same answer each time) to 2 (more varied wording).', type: 'number', minimum: 0, maximum: 2 },
    handoff: {
      title: 'Hand-off to a person',
      description: 'When the assistant stops and passes the conversation to your team.',
      type: 'object',
      properties: {
        enabled: { title: 'Hand off to a person', description: 'Offer a person when one of the reasons below applies.', type: 'boolean' },
        triggers: {
          title: 'Hand off when',
          type: 'array',
          uniqueItems: true,
          maxItems: 4,
          items: { type: 'string', enum: ['visitor_asks', 'low_confidence', 'negative_sentiment', 'repeated_question'] },
        },
        message: { title: 'Hand-off message', description: 'What the visitor reads while a person is found.', type: 'string', maxLength: 500 },
        email: { ...EMAIL, title: 'Notify address', description: 'Where your team is told about a hand-off.' },
      },
    },
  },
} as const;

export const EMAIL_SETTINGS_SCHEMA = {
  $schema: SETTINGS_SCHEMA_DIALECT,
  $id: 'urn:siteward:settings:email_settings',
  title: 'E-mail',
  description: 'How replies and transcripts are sent by e-mail.',
  type: 'object',
  properties: {
    sender_name: { title: 'Sender name', description: 'The name visitors see in their inbox.', type: 'string', maxLength: 100 },
    sender_address: { ...EMAIL, title: 'Sender address', description: 'The address messages come from. Your mail provider must allow it.' },
    reply_to: { ...EMAIL, title: 'Reply-to address', description: 'Where visitors\' replies go, if not to the sender address.' },
    signature: { title: 'Signature', description: 'Added under every message.', type: 'string', maxLength: 2000 },
    send_transcripts: { title: 'Send transcripts', description: 'E-mail visitors a copy of their conversation when it ends.', type: 'boolean' },
  },
} as const;

export const WIDGET_SCHEMA = {
  $schema: SETTINGS_SCHEMA_DIALECT,
  $id: 'urn:siteward:settings:widget',
  title: 'Chat widget',
  description: 'The chat button and window embedded on your pages.',
  type: 'object',
  properties: {
    enabled: { title: 'Show the widget', description: 'Turn off to hide the widget without removing the embed code.', type: 'boolean', default: true },
    position: { title: 'Position', description: 'The corner of the page the launcher sits in.', type: 'string', enum: ['bottom-right', 'bottom-left'], default: 'bottom-right' },
    launcher_text: { title: 'Launcher text', description: 'The words on the chat button. Leave empty for an icon only.', type: 'string', maxLength: 40 },
    greeting: { title: 'Greeting', description: 'The first message a visitor sees when the chat opens.', type: 'string', maxLength: 500 },
    input_placeholder: { title: 'Message box hint', description: 'The grey text in the empty message box.', type: 'string', maxLength: 80 },
    accent_color: { ...HEX_COLOR, title: 'Accent colour', description: 'The launcher and the visitor\'s messages; #rgb or #rrggbb.' },
    show_branding: { title: 'Show "Powered by Siteward"', type: 'boolean' },
  },
} as const;

export const PORTAL_SCHEMA = {
  $schema: SETTINGS_SCHEMA_DIALECT,
  $id: 'urn:siteward:settings:portal',
  title: 'Help portal',
  description: 'The public help centre with your articles and answers.',
  type: 'object',
  properties: {
    enabled: { title: 'Publish the portal', type: 'boolean' },
    title: { title: 'Portal title', description: 'Shown in the browser tab and at the top of every page.', type: 'string', maxLength: 120 },
    custom_domain: {
      title: 'Custom domain',
      description: 'A host name of yours, such as help.example.com; point its DNS at this server.',
      type: 'string',
      format: 'hostname',
      pattern: '^(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?\\.)+[a-zA-Z]{2,63}$',
      maxLength: 253,
    },
    path: { title: 'Path', description: 'Where the portal lives on that domain, such as /help. Starts with /.', type: 'string', pattern: '^/[a-zA-Z0-9/_-]*$', maxLength: 100 },
    visibility: {
      title: 'Who can see it',
      description: 'Everyone, signed-in customers only, or only your team.',
      type: 'string',
      enum: ['public', 'signed_in', 'private'],
    },
    search_enabled: { title: 'Search box', description: 'Let visitors search the articles.', type: 'boolean' },
  },
} as const;

export const BRANDING_SCHEMA = {
  $schema: SETTINGS_SCHEMA_DIALECT,
  $id: 'urn:siteward:settings:branding',
  title: 'Branding',
  description: 'Your name, logo and colours, shown to visitors in the widget and the portal.',
  type: 'object',
  properties: {
    company_name: { title: 'Company name', description: 'Shown in the widget header and the portal.', type: 'string', maxLength: 100 },
    logo_url: { ...HTTP_URL, title: 'Logo URL', description: 'A square image, at least 64 × 64 pixels; https:// recommended.' },
    primary_color: { ...HEX_COLOR, title: 'Primary colour', description: 'Headers and buttons; #rgb or #rrggbb.' },
    secondary_color: { ...HEX_COLOR, title: 'Secondary colour', description: 'Links and highlights; #rgb or #rrggbb.' },
    font: {
      title: 'Font',
      description: 'A font family every device has, so nothing is fetched from another server.',
      type: 'string',
      enum: ['system', 'sans-serif', 'serif', 'monospace'],
    },
  },
} as const;

export const PUBLIC_THEME_SCHEMA = {
  $schema: SETTINGS_SCHEMA_DIALECT,
  $id: 'urn:siteward:settings:public_theme',
  title: 'Public theme',
  description: 'The look of the widget window and the portal pages.',
  type: 'object',
  properties: {
    appearance: { title: 'Appearance', description: '"auto" follows the visitor\'s light or dark setting.', type: 'string', enum: ['auto', 'light', 'dark'] },
    background_color: { ...HEX_COLOR, title: 'Background colour', description: 'The page and chat window background; #rgb or #rrggbb.' },
    text_color: { ...HEX_COLOR, title: 'Text colour', description: 'Body text; #rgb or #rrggbb.' },
    corner_radius: { title: 'Corner radius', description: 'Roundness of buttons and bubbles, in pixels (0–24).', type: 'integer', minimum: 0, maximum: 24 },
    density: { title: 'Density', description: 'How much space surrounds text.', type: 'string', enum: ['comfortable', 'compact'] },
  },
} as const;

export const KNOWLEDGE_SOURCES_SCHEMA = {
  $schema: SETTINGS_SCHEMA_DIALECT,
  $id: 'urn:siteward:settings:knowledge_sources',
  title: 'Knowledge sources',
  description: 'Where the assistant looks for answers.',
  type: 'object',
  properties: {
    sources: {
      title: 'Sources',
      description: 'Up to 50 places the assistant reads, each kept up to date on its own schedule.',
      type: 'array',
      maxItems: 50,
      items: {
        title: 'Source',
        type: 'object',
        required: ['type', 'url'],
        properties: {
          name: { title: 'Name', description: 'How the source is called in answers and reports.', type: 'string', maxLength: 100 },
          type: { title: 'Type', type: 'string', enum: ['website', 'sitemap', 'document', 'faq'] },
          url: { ...HTTP_URL, title: 'Address', description: 'Where the source is read from: http:// or https://.' },
          sync_interval: { title: 'Update', description: 'How often the source is read again.', type: 'string', enum: ['manual', 'hourly', 'daily', 'weekly'] },
          enabled: { title: 'Use this source', type: 'boolean' },
        },
      },
    },
  },
} as const;

/** Each group's schema, keyed by the site field it describes (the order of SETTINGS_FIELDS). */
export const SETTINGS_SCHEMAS = {
  ai_settings: AI_SETTINGS_SCHEMA,
  email_settings: EMAIL_SETTINGS_SCHEMA,
  widget: WIDGET_SCHEMA,
  portal: PORTAL_SCHEMA,
  branding: BRANDING_SCHEMA,
  public_theme: PUBLIC_THEME_SCHEMA,
  knowledge_sources: KNOWLEDGE_SOURCES_SCHEMA,
} as const;

export type SettingsSchemaGroup = keyof typeof SETTINGS_SCHEMAS;

/** Readable names for the enum values the forms offer; keyed by the value as stored. */
export const SETTINGS_ENUM_LABELS: Record<string, string> = {
  friendly: 'Friendly',
  professional: 'Professional',
  concise: 'Concise',
  playful: 'Playful',
  visitor_asks: 'The visitor asks for a person',
  low_confidence: 'The assistant is unsure of its answer',
  negative_sentiment: 'The visitor seems upset',
  repeated_question: 'The visitor repeats a question',
  'bottom-right': 'Bottom right',
  'bottom-left': 'Bottom left',
  public: 'Everyone',
  signed_in: 'Signed-in customers',
  private: 'Only your team',
  system: 'System default',
  'sans-serif': 'Sans-serif',
  serif: 'Serif',
  monospace: 'Monospace',
  auto: 'Follow the visitor\'s setting',
  light: 'Light',
  dark: 'Dark',
  comfortable: 'Comfortable',
  compact: 'Compact',
  website: 'Website (crawled)',
  sitemap: 'Sitemap',
  document: 'Document (PDF, text)',
  faq: 'FAQ page',
  manual: 'Only when asked',
  hourly: 'Every hour',
  daily: 'Every day',
  weekly: 'Every week',
};
