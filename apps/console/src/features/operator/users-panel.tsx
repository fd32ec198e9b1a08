import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Alert, Badge, Button, Checkbox, Code, Group, Stack, Switch, Table, TextInput, Title } from '@mantine/core';
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { CopyValue, ErrorAlert, LoadingRows } from '../../components/common';
import { formatDate } from '../../i18n';

type User = components['schemas']['UserDto'];

/** Operators' list of users: create (a generated password is shown once), disable, make operator. */
export function UsersPanel() {
  const { t, i18n } = useTranslation();
  const qc = useQueryClient();
  const [email, setEmail] = useState('');
  const [operator, setOperator] = useState(false);
  const users = useQuery({
    queryKey: ['admin-users'],
    queryFn: async () => unwrap(await api.GET('/api/v1/admin/users', { params: { query: { limit: 100 } } })),
  });
  const create = useMutation({
    mutationFn: async () => unwrap(await api.POST('/api/v1/admin/users', { body: { email: email.trim(), operator } })),
    onSuccess: () => {
      setEmail('');
      setOperator(false);
      void qc.invalidateQueries({ queryKey: ['admin-users'] });
    },
  });
  const update = useMutation({
    mutationFn: async (v: { id: string; operator?: boolean; disabled?: boolean }) =>
      unwrap(
        await api.PATCH('/api/v1/admin/users/{id}', {
          params: { path: { id: v.id } },
          body: { operator: v.operator, disabled: v.disabled },
        }),
      ),
    onSuccess: () => qc.invalidateQueries({ queryKey: ['admin-users'] }),
  });
  const list = (users.data?.data ?? []) as User[];
  return (
    <Stack>
      <Title order={2} size="h4">
        {t('users.title')}
      </Title>
      <form
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          create.mutate();
        }}
      >
        <Group align="flex-end">
          <TextInput
            label={t('users.email')}
            type="email"
            required
            value={email}
            onChange={(e) => setEmail(e.currentTarget.value)}
          />
          <Checkbox
            label={t('users.operator')}
            checked={operator}
            onChange={(e) => setOperator(e.currentTarget.checked)}
            mb={8}
          />
          <Button type="submit" variant="light" loading={create.isPending} disabled={!email.trim()}>
            {t('users.create')}
          </Button>
        </Group>
      </form>
      {create.data?.password && (
        <Alert color="yellow" title={t('users.created', { email: create.data.email })}>
          <Group>
            <Code data-testid="new-user-password">{create.data.password}</Code>
            <CopyValue value={create.data.password} label={t('users.copyPassword')} />
          </Group>
        </Alert>
      )}
      <ErrorAlert error={create.error ?? users.error ?? update.error} />
      {users.isPending ? (
        <LoadingRows />
      ) : (
        <Table.ScrollContainer minWidth={640}>
          <Table aria-label={t('users.title')}>
            <Table.Thead>
              <Table.Tr>
                <Table.Th>{t('members.email')}</Table.Th>
                <Table.Th>{t('members.name')}</Table.Th>
                <Table.Th>{t('users.lastLogin')}</Table.Th>
                <Table.Th>{t('users.operator')}</Table.Th>
                <Table.Th>{t('users.disabled')}</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {list.map((u) => (
                <Table.Tr key={u.id}>
                  <Table.Td>
                    {u.email} {u.disabled && <Badge color="gray">{t('users.disabled')}</Badge>}
                  </Table.Td>
                  <Table.Td>{u.name}</Table.Td>
                  <Table.Td>{formatDate(u.last_login_at as unknown as string | null, i18n.language)}</Table.Td>
                  <Table.Td>
                    <Switch
                      aria-label={t('users.operatorOf', { email: u.email })}
                      checked={u.operator}
                      onChange={(e) => update.mutate({ id: u.id, operator: e.currentTarget.checked })}
                    />
                  </Table.Td>
                  <Table.Td>
                    <Switch
                      aria-label={t('users.disabledOf', { email: u.email })}
                      checked={u.disabled}
                      onChange={(e) => update.mutate({ id: u.id, disabled: e.currentTarget.checked })}
                    />
                  </Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
    </Stack>
  );
}
