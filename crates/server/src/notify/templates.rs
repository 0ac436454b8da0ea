//! The texts of our mails and SMS, in French (default) and English. The language is the one the
//! request asked for (`Accept-Language`), so a user gets mail in the language of the screen
//! they used.

use super::mail::Mail;

/// A language of the product.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    Fr,
    En,
}

impl Lang {
    /// The first language of an `Accept-Language` value that we speak; French otherwise.
    pub fn from_accept_language(header: Option<&str>) -> Self {
        for part in header.unwrap_or("").split(',') {
            let tag = part
                .split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase();
            if tag.starts_with("fr") {
                return Lang::Fr;
            }
            if tag.starts_with("en") {
                return Lang::En;
            }
        }
        Lang::Fr
    }
}

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

struct Texts {
    subject: &'static str,
    intro: &'static str,
    action: &'static str,
    code: &'static str,
    outro: &'static str,
}

fn texts(kind: MailKind, lang: Lang) -> Texts {
    match (kind, lang) {
        (MailKind::Recovery, Lang::Fr) => Texts {
            subject: "Réinitialisez votre mot de passe Regard",
            intro: "Vous avez demandé à réinitialiser le mot de passe de votre compte Regard.",
            action: "Choisir un nouveau mot de passe",
            code: "Ou saisissez ce code dans Regard",
            outro: "Ce lien est valable une heure et ne sert qu'une fois. Si vous n'êtes pas à l'origine de cette demande, ignorez ce message : votre mot de passe ne change pas.",
        },
        (MailKind::Recovery, Lang::En) => Texts {
            subject: "Reset your Regard password",
            intro: "You asked to reset the password of your Regard account.",
            action: "Choose a new password",
            code: "Or enter this code in Regard",
            outro: "This link is valid for one hour and works once. If you did not ask for it, ignore this message: your password stays the same.",
        },
        (MailKind::Confirmation, Lang::Fr) => Texts {
            subject: "Confirmez votre adresse pour Regard",
            intro: "Bienvenue sur Regard ! Confirmez votre adresse email pour activer votre compte.",
            action: "Confirmer mon adresse",
            code: "Ou saisissez ce code dans Regard",
            outro: "Ce lien est valable une heure. Si vous n'avez pas créé de compte, ignorez ce message.",
        },
        (MailKind::Confirmation, Lang::En) => Texts {
            subject: "Confirm your address for Regard",
            intro: "Welcome to Regard! Confirm your email address to activate your account.",
            action: "Confirm my address",
            code: "Or enter this code in Regard",
            outro: "This link is valid for one hour. If you did not create an account, ignore this message.",
        },
        (MailKind::EmailChange, Lang::Fr) => Texts {
            subject: "Confirmez votre nouvelle adresse Regard",
            intro: "Vous avez demandé à utiliser cette adresse pour votre compte Regard.",
            action: "Confirmer la nouvelle adresse",
            code: "Ou saisissez ce code dans Regard",
            outro: "Ce lien est valable une heure. Tant qu'il n'est pas suivi, votre ancienne adresse reste celle du compte.",
        },
        (MailKind::EmailChange, Lang::En) => Texts {
            subject: "Confirm your new Regard address",
            intro: "You asked to use this address for your Regard account.",
            action: "Confirm the new address",
            code: "Or enter this code in Regard",
            outro: "This link is valid for one hour. Until it is followed, your previous address stays the account's.",
        },
        (MailKind::MagicLink, Lang::Fr) => Texts {
            subject: "Votre lien de connexion à Regard",
            intro: "Voici le lien pour vous connecter à Regard, sans mot de passe.",
            action: "Me connecter",
            code: "Ou saisissez ce code dans Regard",
            outro: "Ce lien est valable une heure et ne sert qu'une fois. Si vous n'avez rien demandé, ignorez ce message.",
        },
        (MailKind::MagicLink, Lang::En) => Texts {
            subject: "Your Regard sign-in link",
            intro: "Here is your link to sign in to Regard, no password needed.",
            action: "Sign in",
            code: "Or enter this code in Regard",
            outro: "This link is valid for one hour and works once. If you did not ask for it, ignore this message.",
        },
        (MailKind::Invite, Lang::Fr) => Texts {
            subject: "Vous êtes invité sur Regard",
            intro: "Vous êtes invité à rejoindre Regard, l'outil de simulation et d'attention pour l'affichage.",
            action: "Accepter l'invitation",
            code: "Ou saisissez ce code dans Regard",
            outro: "Ce lien est valable une heure. Si vous ne vous attendiez pas à cette invitation, ignorez ce message.",
        },
        (MailKind::Invite, Lang::En) => Texts {
            subject: "You are invited to Regard",
            intro: "You are invited to join Regard, the mock-up and attention tool for out-of-home advertising.",
            action: "Accept the invitation",
            code: "Or enter this code in Regard",
            outro: "This link is valid for one hour. If you did not expect this invitation, ignore this message.",
        },
        (MailKind::Reauthentication, Lang::Fr) => Texts {
            subject: "Confirmez qu'il s'agit bien de vous",
            intro: "Pour changer votre mot de passe Regard, confirmez qu'il s'agit bien de vous.",
            action: "",
            code: "Saisissez ce code dans Regard",
            outro: "Ce code est valable une heure. Si vous n'êtes pas à l'origine de cette demande, changez votre mot de passe.",
        },
        (MailKind::Reauthentication, Lang::En) => Texts {
            subject: "Confirm it is you",
            intro: "To change your Regard password, confirm that it is you.",
            action: "",
            code: "Enter this code in Regard",
            outro: "This code is valid for one hour. If you did not ask for it, change your password.",
        },
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
pub fn mail(kind: MailKind, lang: Lang, to: &str, link: &str, code: &str) -> Mail {
    let t = texts(kind, lang);
    let colon = if lang == Lang::Fr { " :" } else { ":" };
    // A reauthentication mail carries a code only (it is typed where the password changes).
    let has_link = !link.is_empty();
    let text_link = if has_link {
        format!("{}{colon}\n{link}\n\n", t.action)
    } else {
        String::new()
    };
    let text = format!(
        "{}\n\n{text_link}{}{colon} {code}\n\n{}\n\n— Regard\n",
        t.intro, t.code, t.outro
    );
    let html_link = if has_link {
        format!(
            "<p style=\"margin:24px 0\"><a href=\"{href}\" style=\"display:inline-block;background:#1c1917;\
             color:#fff;text-decoration:none;padding:12px 20px;border-radius:8px\">{action}</a></p>",
            href = escape(link),
            action = escape(t.action),
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
        lang = if lang == Lang::Fr { "fr" } else { "en" },
        intro = escape(t.intro),
        outro = escape(t.outro),
        code_label = escape(t.code),
        code = escape(code),
    );
    Mail {
        to: to.to_owned(),
        subject: t.subject.to_owned(),
        text,
        html,
    }
}

/// The notice mailed to the current address when a change to `new_email` is asked for, so the
/// owner hears of it even when someone else holds the session (GoTrue's secure email change
/// mails the current address too). It carries no link: nothing is to be clicked to keep the
/// account, only a password to change if the request was not theirs.
pub fn email_change_notice(lang: Lang, to: &str, new_email: &str) -> Mail {
    let (subject, intro, outro) = match lang {
        Lang::Fr => (
            "Changement d'adresse demandé sur votre compte Regard",
            format!(
                "Un changement de l'adresse de votre compte Regard vers {new_email} vient d'être demandé. Il prendra effet quand cette nouvelle adresse aura été confirmée."
            ),
            "Si vous n'êtes pas à l'origine de cette demande, connectez-vous et changez votre mot de passe sans attendre : cela ferme les autres sessions.",
        ),
        Lang::En => (
            "Address change requested on your Regard account",
            format!(
                "A change of your Regard account's address to {new_email} has just been requested. It takes effect once that new address is confirmed."
            ),
            "If you did not ask for it, sign in and change your password at once: this ends the other sessions.",
        ),
    };
    let text = format!("{intro}\n\n{outro}\n\n— Regard\n");
    let html = format!(
        "<!doctype html>\n<html lang=\"{lang}\"><body style=\"margin:0;padding:24px;background:#f5f5f4;\
         font-family:system-ui,-apple-system,'Segoe UI',sans-serif;color:#1c1917\">\
         <div style=\"max-width:520px;margin:0 auto;background:#fff;border-radius:12px;padding:32px\">\
         <p style=\"font-size:20px;font-weight:600;margin:0 0 16px\">Regard</p>\
         <p style=\"line-height:1.5\">{intro}</p>\
         <p style=\"font-size:13px;color:#57534e;line-height:1.5\">{outro}</p>\
         </div></body></html>\n",
        lang = if lang == Lang::Fr { "fr" } else { "en" },
        intro = escape(&intro),
        outro = escape(outro),
    );
    Mail {
        to: to.to_owned(),
        subject: subject.to_owned(),
        text,
        html,
    }
}

/// The SMS carrying a second-factor code.
pub fn sms_code(lang: Lang, code: &str) -> String {
    match lang {
        Lang::Fr => {
            format!("Regard : votre code de vérification est {code}. Il expire dans 5 minutes.")
        }
        Lang::En => format!("Regard: your verification code is {code}. It expires in 5 minutes."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_email_change_notice_names_the_new_address_in_both_languages() {
        for lang in [Lang::Fr, Lang::En] {
            let mail = email_change_notice(lang, "old@example.com", "new<x>@example.com");
            assert_eq!(mail.to, "old@example.com");
            assert!(mail.text.contains("new<x>@example.com"));
            assert!(mail.html.contains("new&lt;x&gt;@example.com"));
            assert!(!mail.html.contains("href"));
        }
    }

    #[test]
    fn accept_language_picks_the_first_language_we_speak() {
        assert_eq!(
            Lang::from_accept_language(Some("en-GB,en;q=0.9,fr;q=0.8")),
            Lang::En
        );
        assert_eq!(
            Lang::from_accept_language(Some("de-DE,fr;q=0.5,en;q=0.4")),
            Lang::Fr
        );
        assert_eq!(Lang::from_accept_language(Some("de-DE")), Lang::Fr);
        assert_eq!(Lang::from_accept_language(None), Lang::Fr);
    }

    #[test]
    fn the_link_is_escaped_in_html_and_plain_in_text() {
        let mail = mail(
            MailKind::Recovery,
            Lang::En,
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
