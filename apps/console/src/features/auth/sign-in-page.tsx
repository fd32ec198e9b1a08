import { useState, type FormEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import {
  Anchor,
  Button,
  Center,
  Group,
  Paper,
  PasswordInput,
  Stack,
  Tabs,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { api, unwrap, type Credential } from '../../api/client';
import { useAuth } from '../../auth/auth-context';
import { ErrorAlert } from '../../components/common';
import { LanguageSwitch, ThemeSwitch } from '../../app/layout';

/** Whether single sign-on is configured, from the server's public list of sign-in methods. */
function useSsoAvailable(): boolean {
  const providers = useQuery({
    queryKey: ['auth-providers'],
    queryFn: async () => unwrap(await api.GET('/api/v1/auth/providers')),
    staleTime: Infinity,
    retry: false,
  });
  return providers.data?.oidc === true;
}

function useSubmit(action: () => Promise<void>) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await action();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, submit };
}

/** Pages only an operator uses, and pages that need an account session. */
const OPERATOR_PAGES = ['/operator', '/providers'];
const SESSION_PAGES = ['/members', '/audit-log', '/billing'];
const under = (path: string, pages: string[]) => pages.some((p) => path === p || path.startsWith(`${p}/`));

/** Whether a credential of this kind can use the page at `path` (the admin token: operator pages only). */
export function fitsCredential(kind: Credential['kind'], path: string): boolean {
  if (kind === 'admin') return under(path, OPERATOR_PAGES);
  if (kind === 'key') return !under(path, [...OPERATOR_PAGES, ...SESSION_PAGES]);
  return true;
}

export function SignInPage() {
  const { t } = useTranslation();
  const auth = useAuth();
  const sso = useSsoAvailable();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [apiKey, setApiKey] = useState('');
  const [token, setToken] = useState('');
  const navigate = useNavigate();
  // a sign-in stays on the address it was made at when the credential can use that page (a link
  // opened again after a reload), and otherwise lands on the home page, which fits the credential
  const landing = (kind: Credential['kind'], signIn: () => Promise<void>) => async () => {
    await signIn();
    if (!fitsCredential(kind, window.location.pathname)) void navigate('/', { replace: true });
  };
  const withPassword = useSubmit(landing('session', () => auth.signInWithPassword(email.trim(), password)));
  const withKey = useSubmit(landing('key', () => auth.signInWithKey(apiKey.trim())));
  const withToken = useSubmit(landing('admin', () => auth.signInWithAdminToken(token.trim())));

  return (
    <Center mih="100vh" p="md">
      <Paper withBorder shadow="sm" p="xl" radius="md" w={420} component="main">
        <Group justify="space-between" mb="md">
          <Title order={1} size="h3">
            {t('signIn.title')}
          </Title>
          <Group gap="xs">
            <LanguageSwitch />
            <ThemeSwitch />
          </Group>
        </Group>
        <Tabs defaultValue="password">
          <Tabs.List grow mb="md">
            <Tabs.Tab value="password">{t('signIn.tabPassword')}</Tabs.Tab>
            <Tabs.Tab value="key">{t('signIn.tabKey')}</Tabs.Tab>
            <Tabs.Tab value="operator">{t('signIn.tabOperator')}</Tabs.Tab>
          </Tabs.List>
          <Tabs.Panel value="password">
            <form onSubmit={withPassword.submit}>
              <Stack>
                <ErrorAlert error={withPassword.error} />
                <TextInput
                  label={t('signIn.email')}
                  type="email"
                  autoComplete="username"
                  required
                  value={email}
                  onChange={(e) => setEmail(e.currentTarget.value)}
                />
                <PasswordInput
                  label={t('signIn.password')}
                  autoComplete="current-password"
                  required
                  value={password}
                  onChange={(e) => setPassword(e.currentTarget.value)}
                />
                <Button type="submit" loading={withPassword.busy}>
                  {t('signIn.submit')}
                </Button>
                {sso && (
                  <Button component="a" href="/api/v1/auth/oidc/login" variant="default">
                    {t('signIn.sso')}
                  </Button>
                )}
              </Stack>
            </form>
          </Tabs.Panel>
          <Tabs.Panel value="key">
            <form onSubmit={withKey.submit}>
              <Stack>
                <ErrorAlert error={withKey.error} />
                <Text size="sm" c="dimmed">
                  {t('signIn.keyHint')}
                </Text>
                <PasswordInput
                  label={t('signIn.apiKey')}
                  required
                  autoComplete="off"
                  value={apiKey}
                  onChange={(e) => setApiKey(e.currentTarget.value)}
                />
                <Button type="submit" loading={withKey.busy}>
                  {t('signIn.submit')}
                </Button>
              </Stack>
            </form>
          </Tabs.Panel>
          <Tabs.Panel value="operator">
            <form onSubmit={withToken.submit}>
              <Stack>
                <ErrorAlert error={withToken.error} />
                <Text size="sm" c="dimmed">
                  {t('signIn.operatorHint')}
                </Text>
                <PasswordInput
                  label={t('signIn.adminToken')}
                  required
                  autoComplete="off"
                  value={token}
                  onChange={(e) => setToken(e.currentTarget.value)}
                />
                <Button type="submit" loading={withToken.busy}>
                  {t('signIn.submit')}
                </Button>
              </Stack>
            </form>
          </Tabs.Panel>
        </Tabs>
        <Text size="sm" mt="lg" data-testid="no-user-hint">
          <Text span fw={600} size="sm">
            {t('signIn.nobodyTitle')}
          </Text>{' '}
          {t('signIn.nobody')}
        </Text>
        <Text size="xs" mt="sm">
          <Anchor href="/docs" size="xs">
            {t('signIn.apiDocs')}
          </Anchor>
        </Text>
      </Paper>
    </Center>
  );
}
