import type { loader, action } from "~/routes/admin.avatars.new";
import { Form, Link, useActionData, useLoaderData } from "@remix-run/react";
import { ArrowLeft } from "lucide-react";
import { ArtInput, AvatarFields } from "~/components/avatars/AvatarFields";
import {
  Alert,
  buttonClass,
  Card,
  SubmitButton,
  useFocusFirstError,
  PageTitle,
} from "~/components/ui";
import { useT } from "~/i18n";

export function NewAvatarScreen() {
  const t = useT();
  const { statuses } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  useFocusFirstError(result);
  return (
    <div className="mx-auto max-w-3xl px-4 py-8 sm:px-6 sm:py-12">
      <Link to="/admin/avatars" className={buttonClass.ghost}>
        <ArrowLeft aria-hidden className="size-4" />
        {t("adminAvatars.back")}
      </Link>
      <Card className="mt-4">
        <PageTitle size="card">{t("adminAvatars.new")}</PageTitle>
        <Form method="post" encType="multipart/form-data" className="mt-6 space-y-5" noValidate>
          {result?.error && <Alert error={result.error} />}
          <AvatarFields statuses={statuses} values={result?.values} errors={result?.fieldErrors} />
          <ArtInput />
          <SubmitButton label="adminAvatars.create" pendingLabel="adminAvatars.creating" />
        </Form>
      </Card>
    </div>
  );
}
