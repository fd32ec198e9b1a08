import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useMutation, useQuery } from '@tanstack/react-query';
import { Alert, Button, Code, Group, Modal, Select, Stack, Text, TextInput } from '@mantine/core';
import { api, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { CopyValue, ErrorAlert } from '../../components/common';

export type Role = components['schemas']['RoleDto']['role'];
export const ROLES: Role[] = ['owner', 'admin', 'member', 'viewer'];

/**
 * Invites someone into a team by email with a role (member unless chosen); the invitation link is
 * shown to copy. An e-mail with a pending invitation asks first whether to send a new one (the old
 * link is revoked).
 */
export function InviteForm({
  teamId,
  defaultRole = 'member',
  onInvited,
}: {
  teamId: string;
  defaultRole?: Role;
  onInvited?: () => void;
}) {
  const { t } = useTranslation();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>(defaultRole);
  const [resendOf, setResendOf] = useState<string | null>(null);
  const invitations = useQuery({
    queryKey: ['invitations', teamId],
    queryFn: async () =>
      unwrap(await api.GET('/api/v1/teams/{team_id}/invitations', { params: { path: { team_id: teamId } } })),
  });
  const invite = useMutation({
    mutationFn: async (revokeId: string | null) => {
      if (revokeId)
        unwrap(
          await api.DELETE('/api/v1/teams/{team_id}/invitations/{id}', {
            params: { path: { team_id: teamId, id: revokeId } },
          }),
        );
      return unwrap(
        await api.POST('/api/v1/teams/{team_id}/invitations', {
          params: { path: { team_id: teamId } },
          body: { email: email.trim(), role },
        }),
      );
    },
    onSuccess: () => {
      setEmail('');
      setResendOf(null);
      void invitations.refetch();
      onInvited?.();
    },
  });
  const pendingFor = (address: string) =>
    (invitations.data?.data ?? []).find(
      (i) => i.status === 'pending' && i.email.toLowerCase() === address.trim().toLowerCase(),
    );
  const link = invite.data ? new URL(invite.data.url, window.location.origin).toString() : null;
  return (
    <Stack gap="xs">
      <form
        onSubmit={(e: FormEvent) => {
          e.preventDefault();
          const pending = pendingFor(email);
          if (pending) setResendOf(pending.id);
          else invite.mutate(null);
        }}
      >
        <Group align="flex-end">
          <TextInput
            label={t('members.email')}
            type="email"
            required
            value={email}
            onChange={(e) => setEmail(e.currentTarget.value)}
          />
          <Select
            label={t('members.role')}
            w={180}
            allowDeselect={false}
            value={role}
            onChange={(v) => v && setRole(v as Role)}
            data={ROLES.map((r) => ({ value: r, label: t(`roles.${r}`) }))}
          />
          <Button type="submit" loading={invite.isPending} disabled={!email.trim()}>
            {t('members.invite')}
          </Button>
        </Group>
      </form>
      <Modal opened={resendOf !== null} onClose={() => setResendOf(null)} title={t('members.resendTitle')}>
        <Text mb="md">{t('members.resendBody', { email: email.trim() })}</Text>
        <Group justify="flex-end">
          <Button variant="default" onClick={() => setResendOf(null)}>
            {t('common.cancel')}
          </Button>
          <Button loading={invite.isPending} onClick={() => invite.mutate(resendOf)}>
            {t('members.resend')}
          </Button>
        </Group>
      </Modal>
      <ErrorAlert error={invite.error} />
      {link && (
        <Alert color="teal" title={t('members.invited')}>
          <Group>
            <Code data-testid="invitation-link">{link}</Code>
            <CopyValue value={link} label={t('members.copyLink')} />
          </Group>
        </Alert>
      )}
    </Stack>
  );
}
