import { useState, type FormEvent } from 'react';
import { useParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { useQuery } from '@tanstack/react-query';
import {
  Alert,
  Button,
  Center,
  Group,
  Paper,
  PasswordInput,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { api, unwrap } from '../../api/client';
import { acceptInvitation } from '../../auth/session-api';
import { useAuth } from '../../auth/auth-context';
import { ErrorAlert, LoadingRows } from '../../components/common';
import { LanguageSwitch, ThemeSwitch } from '../../app/layout';
import { formatDate } from '../../i18n';

/**
 * The invitation link's page: what the invitation is for (team, inviter, invited e-mail, role) from
 * the public preview, then the account form with the server's password rule; an invalid or expired
 * link is said at once. Signed in, the invitation is accepted with the session.
 */
export function AcceptInvitationPage() {
  const { t, i18n } = useTranslation();
  const { token = '' } = useParams();
  const auth = useAuth();
  const preview = useQuery({
    queryKey: ['invitation', token],
    queryFn: async () => unwrap(await api.GET('/api/v1/invitations/{token}', { params: { path: { token } } })),
    retry: false,
  });
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState(false);
  const inv = preview.data;
  const min = inv?.password_min_length ?? 12;
  const max = inv?.password_max_length ?? 200;
  const signedIn = auth.status === 'signed-in' && auth.mode === 'session';
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await acceptInvitation(token, signedIn ? {} : { name: name.trim() || undefined, password });
      setDone(true);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const role = inv ? t(`roles.${inv.role}`) : '';
  return (
    <Center mih="100vh" p="md">
      <Paper withBorder p="xl" radius="md" w={460} maw="100%" component="main">
        <Group justify="space-between" mb="md" wrap="nowrap">
          <Title order={1} size="h3">
            {t('invite.title')}
          </Title>
          <Group gap="xs" wrap="nowrap">
            <LanguageSwitch />
            <ThemeSwitch />
          </Group>
        </Group>
        {preview.isPending ? (
          <LoadingRows rows={3} />
        ) : !inv ? (
          <Alert color="red" role="alert" title={t('common.error')} data-testid="invitation-invalid">
            {t('invite.invalid')}
          </Alert>
        ) : done ? (
          <Stack>
            <Text>{t('invite.done')}</Text>
            <Button onClick={() => window.location.assign('/')}>
              {signedIn ? t('invite.toConsole') : t('invite.toSignIn')}
            </Button>
          </Stack>
        ) : (
          <Stack>
            <Text>
              {inv.invited_by
                ? t('invite.intro', { inviter: inv.invited_by, team: inv.team_name, role })
                : t('invite.introNoInviter', { team: inv.team_name, role })}
            </Text>
            <Table variant="vertical" withTableBorder data-testid="invitation-facts">
              <Table.Tbody>
                <Table.Tr>
                  <Table.Th w={150}>{t('invite.team')}</Table.Th>
                  <Table.Td>{inv.team_name}</Table.Td>
                </Table.Tr>
                <Table.Tr>
                  <Table.Th>{t('invite.invitedBy')}</Table.Th>
                  <Table.Td>{inv.invited_by ?? '—'}</Table.Td>
                </Table.Tr>
                <Table.Tr>
                  <Table.Th>{t('invite.invitedEmail')}</Table.Th>
                  <Table.Td>{inv.email}</Table.Td>
                </Table.Tr>
                <Table.Tr>
                  <Table.Th>{t('invite.expires')}</Table.Th>
                  <Table.Td>{formatDate(inv.expires_at, i18n.language)}</Table.Td>
                </Table.Tr>
              </Table.Tbody>
            </Table>
            <ErrorAlert error={error} />
            {signedIn ? (
              <form onSubmit={submit}>
                <Button type="submit" loading={busy} fullWidth>
                  {t('invite.acceptSignedIn', { email: auth.email })}
                </Button>
              </form>
            ) : inv.account_exists ? (
              <Stack>
                <Text>{t('invite.accountExists', { email: inv.email })}</Text>
                <Button onClick={() => window.location.assign('/')}>{t('invite.toSignIn')}</Button>
              </Stack>
            ) : (
              <form onSubmit={submit}>
                <Stack>
                  <TextInput
                    label={t('invite.name')}
                    required
                    value={name}
                    onChange={(e) => setName(e.currentTarget.value)}
                  />
                  <PasswordInput
                    label={t('invite.password')}
                    description={t('invite.passwordRule', { min, count: password.length })}
                    autoComplete="new-password"
                    required
                    minLength={min}
                    maxLength={max}
                    value={password}
                    onChange={(e) => setPassword(e.currentTarget.value)}
                  />
                  <Button
                    type="submit"
                    loading={busy}
                    disabled={password.length < min || password.length > max || !name.trim()}
                  >
                    {t('invite.accept')}
                  </Button>
                </Stack>
              </form>
            )}
          </Stack>
        )}
      </Paper>
    </Center>
  );
}
