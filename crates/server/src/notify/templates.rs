//! Our mails and SMS, in French (default) and English: their words are the catalogue's
//! (`crate::i18n`, keys `mail.*` and `sms.*`), their layout is here. The language is the one the
//! request asked for (`Accept-Language`), so a user gets mail in the language of the screen
//! they used.

use super::mail::Mail;
use crate::i18n::{Locale, t};

/// What a mail is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MailKind {
    Recovery,
    Confirmation,
    EmailChange,
    MagicLink,
    Invite,
    Reauthentication,
}

impl MailKind {
    /// Every kind.
    pub const ALL: [MailKind; 6] = [
        MailKind::Recovery,
        MailKind::Confirmation,
        MailKind::EmailChange,
        MailKind::MagicLink,
        MailKind::Invite,
        MailKind::Reauthentication,
    ];

    /// The catalogue key of one part of this mail: `{part}` is `subject`, `intro`, `action`
    /// (the button; empty for a mail that carries a code only), `code` or `outro`.
    fn key(self) -> &'static str {
        match self {
            MailKind::Recovery => "mail.recovery.{part}",
            MailKind::Confirmation => "mail.confirmation.{part}",
            MailKind::EmailChange => "mail.email_change.{part}",
            MailKind::MagicLink => "mail.magic_link.{part}",
            MailKind::Invite => "mail.invite.{part}",
            MailKind::Reauthentication => "mail.reauthentication.{part}",
        }
    }

    /// The parts of a mail, as [`MailKind::key`] names them.
    const PARTS: [&'static str; 5] = ["subject", "intro", "action", "code", "outro"];

    fn text(self, locale: Locale, part: &str) -> String {
        t(locale, &self.key().replace("{part}", part), &[])
    }
}

/// Escapes text for HTML content and attribute values.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The mail of `kind` to `to`, whose button leads to `link`, with the same token as a 6-digit
/// `code` for typing in.
pub fn mail(kind: MailKind, lang: Locale, to: &str, link: &str, code: &str) -> Mail {
    let [subject, intro, action, code_label, outro] =
        MailKind::PARTS.map(|part| kind.text(lang, part));
    let colon = lang.pick(" :", ":");
    // A reauthentication mail carries a code only (it is typed where the password changes).
    let has_link = !link.is_empty();
    let text_link = if has_link {
        format!("{action}{colon}\n{link}\n\n")
    } else {
        String::new()
    };
    let text = format!("{intro}\n\n{text_link}{code_label}{colon} {code}\n\n{outro}\n\n— Regard\n");
    let html_link = if has_link {
        format!(
            "<p style=\"margin:24px 0\"><a href=\"{href}\" style=\"display:inline-block;background:#1c1917;\
             color:#fff;text-decoration:none;padding:12px 20px;border-radius:8px\">{action}</a></p>",
            href = escape(link),
            action = escape(&action),
        )
    } else {
        String::new()
    };
    let html_footer = if has_link {
        format!(
            "<p style=\"font-size:12px;color:#78716c;word-break:break-all\">{}</p>",
            escape(link)
        )
    } else {
        String::new()
    };
    let html = format!(
        "<!doctype html>\n<html lang=\"{lang}\"><body style=\"margin:0;padding:24px;background:#f5f5f4;\
         font-family:system-ui,-apple-system,'Segoe UI',sans-serif;color:#1c1917\">\
         <div style=\"max-width:520px;margin:0 auto;background:#fff;border-radius:12px;padding:32px\">\
         <p style=\"font-size:20px;font-weight:600;margin:0 0 16px\">Regard</p>\
         <p style=\"line-height:1.5\">{intro}</p>{html_link}\
         <p style=\"line-height:1.5\">{code_label}{colon} <strong style=\"font-size:18px;letter-spacing:2px\">{code}</strong></p>\
         <p style=\"font-size:13px;color:#57534e;line-height:1.5\">{outro}</p>{html_footer}\
         </div></body></html>\n",
        lang = lang.code(),
        intro = escape(&intro),
        outro = escape(&outro),
        code_label = escape(&code_label),
        code = escape(code),
    );
    Mail {
        to: to.to_owned(),
        subject,
        text,
        html,
    }
}

/// The notice mailed to the current address when a change to `new_email` is asked for, so the
/// owner hears of it even when someone else holds the session (GoTrue's secure email change
/// mails the current address too). It carries no link: nothing is to be clicked to keep the
/// account, only a password to change if the request was not theirs.
pub fn email_change_notice(lang: Locale, to: &str, new_email: &str) -> Mail {
    let subject = t(lang, "mail.email_change_notice.subject", &[]);
    let intro = t(
        lang,
        "mail.email_change_notice.intro",
        &[("new_email", new_email)],
    );
    let outro = t(lang, "mail.email_change_notice.outro", &[]);
    let text = format!("{intro}\n\n{outro}\n\n— Regard\n");
    let html = format!(
        "<!doctype html>\n<html lang=\"{lang}\"><body style=\"margin:0;padding:24px;background:#f5f5f4;\
         font-family:system-ui,-apple-system,'Segoe UI',sans-serif;color:#1c1917\">\
         <div style=\"max-width:520px;margin:0 auto;background:#fff;border-radius:12px;padding:32px\">\
         <p style=\"font-size:20px;font-weight:600;margin:0 0 16px\">Regard</p>\
         <p style=\"line-height:1.5\">{intro}</p>\
         <p style=\"font-size:13px;color:#57534e;line-height:1.5\">{outro}</p>\
         </div></body></html>\n",
        lang = lang.code(),
        intro = escape(&intro),
        outro = escape(&outro),
    );
    Mail {
        to: to.to_owned(),
        subject,
        text,
        html,
    }
}

/// The invitation to join workspace `workspace` as `role`, sent by `inviter` (their address;
/// empty when they have none), whose button leads to `link`.
pub fn workspace_invitation(
    lang: Locale,
    to: &str,
    inviter: &str,
    workspace: &str,
    role: crate::db::workspaces::WorkspaceRole,
    link: &str,
) -> Mail {
    let role = t(
        lang,
        &format!("mail.workspace_invitation.role.{}", role.as_str()),
        &[],
    );
    let values = [
        ("workspace", workspace),
        ("inviter", inviter),
        ("role", role.as_str()),
    ];
    let subject = t(lang, "mail.workspace_invitation.subject", &values);
    let intro_key = if inviter.is_empty() {
        "mail.workspace_invitation.intro_anonymous"
    } else {
        "mail.workspace_invitation.intro"
    };
    let intro = t(lang, intro_key, &values);
    let action = t(lang, "mail.workspace_invitation.action", &[]);
    let outro = t(lang, "mail.workspace_invitation.outro", &[]);
    let colon = lang.pick(" :", ":");
    let text = format!("{intro}\n\n{action}{colon}\n{link}\n\n{outro}\n\n— Regard\n");
    let html = format!(
        "<!doctype html>\n<html lang=\"{lang}\"><body style=\"margin:0;padding:24px;background:#f5f5f4;\
         font-family:system-ui,-apple-system,'Segoe UI',sans-serif;color:#1c1917\">\
         <div style=\"max-width:520px;margin:0 auto;background:#fff;border-radius:12px;padding:32px\">\
         <p style=\"font-size:20px;font-weight:600;margin:0 0 16px\">Regard</p>\
         <p style=\"line-height:1.5\">{intro}</p>\
         <p style=\"margin:24px 0\"><a href=\"{href}\" style=\"display:inline-block;background:#1c1917;\
         color:#fff;text-decoration:none;padding:12px 20px;border-radius:8px\">{action}</a></p>\
         <p style=\"font-size:13px;color:#57534e;line-height:1.5\">{outro}</p>\
         <p style=\"font-size:12px;color:#78716c;word-break:break-all\">{href}</p>\
         </div></body></html>\n",
        lang = lang.code(),
        intro = escape(&intro),
        href = escape(link),
        action = escape(&action),
        outro = escape(&outro),
    );
    Mail {
        to: to.to_owned(),
        subject,
        text,
        html,
    }
}

/// The mail to a member that `author` (their address) mentioned in a comment on `subject`
/// (a heatmap's or a simulation's name), quoting the comment, whose button leads to `link`.
pub fn mention(
    lang: Locale,
    to: &str,
    author: &str,
    subject: &str,
    comment: &str,
    link: &str,
) -> Mail {
    let values = [("author", author), ("subject", subject)];
    let subject_line = t(lang, "mail.mention.subject", &values);
    let intro = t(lang, "mail.mention.intro", &values);
    let action = t(lang, "mail.mention.action", &[]);
    let outro = t(lang, "mail.mention.outro", &[]);
    let colon = lang.pick(" :", ":");
    let quoted: String = comment.lines().map(|line| format!("> {line}\n")).collect();
    let text = format!("{intro}\n\n{quoted}\n{action}{colon}\n{link}\n\n{outro}\n\n— Regard\n");
    let html = format!(
        "<!doctype html>\n<html lang=\"{lang}\"><body style=\"margin:0;padding:24px;background:#f5f5f4;\
         font-family:system-ui,-apple-system,'Segoe UI',sans-serif;color:#1c1917\">\
         <div style=\"max-width:520px;margin:0 auto;background:#fff;border-radius:12px;padding:32px\">\
         <p style=\"font-size:20px;font-weight:600;margin:0 0 16px\">Regard</p>\
         <p style=\"line-height:1.5\">{intro}</p>\
         <blockquote style=\"margin:0;padding:8px 16px;border-left:3px solid #d6d3d1;color:#44403c;\
         white-space:pre-wrap;line-height:1.5\">{comment}</blockquote>\
         <p style=\"margin:24px 0\"><a href=\"{href}\" style=\"display:inline-block;background:#1c1917;\
         color:#fff;text-decoration:none;padding:12px 20px;border-radius:8px\">{action}</a></p>\
         <p style=\"font-size:13px;color:#57534e;line-height:1.5\">{outro}</p>\
         </div></body></html>\n",
        lang = lang.code(),
        intro = escape(&intro),
        comment = escape(comment),
        href = escape(link),
        action = escape(&action),
        outro = escape(&outro),
    );
    Mail {
        to: to.to_owned(),
        subject: subject_line,
        text,
        html,
    }
}

/// The SMS carrying a second-factor code.
pub fn sms_code(lang: Locale, code: &str) -> String {
    t(lang, "sms.code", &[("code", code)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_email_change_notice_names_the_new_address_in_both_languages() {
        for lang in Locale::ALL {
            let mail = email_change_notice(lang, "old@example.com", "new<x>@example.com");
            assert_eq!(mail.to, "old@example.com");
            assert!(mail.text.contains("new<x>@example.com"));
            assert!(mail.html.contains("new&lt;x&gt;@example.com"));
            assert!(!mail.html.contains("href"));
        }
    }

    #[test]
    fn every_part_of_every_mail_is_in_both_languages() {
        for kind in MailKind::ALL {
            for lang in Locale::ALL {
                for part in MailKind::PARTS {
                    let key = kind.key().replace("{part}", part);
                    let text = crate::i18n::lookup(lang, &key);
                    assert!(text.is_some(), "{key} is missing in {}", lang.code());
                    // Only a mail without a link has no button.
                    let empty = text.is_some_and(str::is_empty);
                    assert_eq!(
                        empty,
                        part == "action" && kind == MailKind::Reauthentication
                    );
                }
            }
        }
    }

    #[test]
    fn the_link_is_escaped_in_html_and_plain_in_text() {
        let mail = mail(
            MailKind::Recovery,
            Locale::En,
            "a@b.c",
            "https://x/verify?a=1&b=\"2\"",
            "012345",
        );
        assert!(mail.text.contains("https://x/verify?a=1&b=\"2\""));
        assert!(
            mail.html
                .contains("https://x/verify?a=1&amp;b=&quot;2&quot;")
        );
        assert!(!mail.html.contains("b=\"2\""));
        assert_eq!(mail.subject, "Reset your Regard password");
        assert!(mail.text.contains("Or enter this code in Regard: 012345"));
        assert!(mail.html.contains("012345"));
    }
}
