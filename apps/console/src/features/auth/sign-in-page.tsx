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
import { api, unwrap } from '../../api/client';
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

export function SignInPage() {
  const { t } = useTranslation();
  const auth = useAuth();
  const sso = useSsoAvailable();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [apiKey, setApiKey] = useState('');
  const [token, setToken] = useState('');
  const navigate = useNavigate();
  // every sign-in lands on the home page, which fits the credential (a team's overview, or the
  // operator area for an operator without a team and for the admin token)
  const landing = (signIn: () => Promise<void>) => async () => {
    await signIn();
    void navigate('/', { replace: true });
  };
  const withPassword = useSubmit(landing(() => auth.signInWithPassword(email.trim(), password)));
  const withKey = useSubmit(landing(() => auth.signInWithKey(apiKey.trim())));
  const withToken = useSubmit(landing(() => auth.signInWithAdminToken(token.trim())));

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
