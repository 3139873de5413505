//! The dashboard over a team data directory (alice and bob imported from
//! bundles, with known costs), in-process through the router: the Team
//! page and `/api/team` show `report::team`'s and the CLI's figures, the
//! `user` filter splits every total into each person's, the person
//! selector and the Team entry appear only with several people, a
//! one-person store's Team page says how to import bundles, and names
//! stay escaped.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use crate::team_support as support;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use cachewise::model::format::usd as dollars;
use cachewise::model::Request as Row;
use cachewise::pricing::PriceTable;
use cachewise::report::query::Query;
use cachewise::report::team::team;
use cachewise::store::Store;
use cachewise::team::import::{import, Incoming};
use cachewise::web::{app, AppState};
use chrono::{DateTime, Duration, Utc};
use common::{t0, Resp};
use http_body_util::BodyExt;
use serde_json::Value;
use support::{bundle_of, cw, json, row};
use tower::ServiceExt;

const DAY: i64 = 24 * 60;

/// `n` turns of `user`'s session `sid`, three minutes apart from `start`.
fn session(user: &str, sid: &str, start: i64, n: u64) -> Vec<Row> {
    (1..=n).map(|k| row(user, sid, k, start + 3 * k as i64)).collect()
}

/// What the rows cost at Sonnet 4.5 list prices (`row` has `Resp`'s tokens).
fn cost(rows: &[Row]) -> f64 {
    rows.iter()
        .map(|r| {
            let minutes = (r.time - t0()).num_minutes();
            Resp::new(&r.session_id, r.line, minutes).sonnet_cost()
        })
        .sum()
}

/// Alice: 4 turns on day 1, 3 on day 2. Bob: 2 on day 1, 5 on day 3.
fn people() -> Vec<(&'static str, Vec<Row>)> {
    let mut alice = session("alice", "alice-s1", 0, 4);
    alice.extend(session("alice", "alice-s2", DAY, 3));
    let mut bob = session("bob", "bob-s1", 60, 2);
    bob.extend(session("bob", "bob-s2", 2 * DAY, 5));
    vec![("alice", alice), ("bob", bob)]
}

fn now() -> DateTime<Utc> {
    t0() + Duration::days(3)
}

/// A team data directory holding the bundles of `people`.
fn team_dir(people: &[(&str, Vec<Row>)]) -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let incoming: Vec<Incoming> = people
        .iter()
        .map(|(u, rows)| Incoming { origin: format!("{u}.parquet"), bundle: bundle_of(u, rows.clone()) })
        .collect();
    import(&store, &incoming, &PriceTable::embedded().unwrap(), t0()).unwrap();
    (dir, store)
}

fn state(store: &Store) -> AppState {
    common::web_state(store, now())
}

/// Alice and Bob's team directory and the dashboard over it.
struct Team {
    people: Vec<(&'static str, Vec<Row>)>,
    _dir: tempfile::TempDir,
    store: Store,
    st: AppState,
}

fn alice_and_bob() -> Team {
    let people = people();
    let (_dir, store) = team_dir(&people);
    let st = state(&store);
    Team { people, _dir, store, st }
}

async fn get(state: &AppState, uri: &str) -> (StatusCode, String) {
    let req = Request::builder().uri(uri).body(Body::empty()).unwrap();
    let res = app(state.clone()).oneshot(req).await.unwrap();
    let status = res.status();
    let bytes = res.into_body().collect().await.unwrap().to_bytes();
    (status, String::from_utf8(bytes.to_vec()).unwrap())
}

async fn page(state: &AppState, uri: &str) -> String {
    let (status, body) = get(state, uri).await;
    assert_eq!(status, StatusCode::OK, "{uri}: {body}");
    body
}

async fn api(state: &AppState, uri: &str) -> Value {
    serde_json::from_str(&page(state, uri).await).unwrap()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9 * a.abs().max(1.0)
}

fn total_cost(v: &Value) -> f64 {
    v["total"]["cost_usd"].as_f64().unwrap()
}

/// The texts of the page's first chart (axis labels, legend).
fn chart_texts(body: &str) -> Vec<String> {
    let start = body.find("<svg").expect("a chart");
    let svg = &body[start..start + body[start..].find("</svg>").unwrap()];
    svg.split("</text>").filter_map(|t| t.rsplit('>').next()).map(|t| t.trim().to_owned()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn team_page_shows_each_person_with_the_report_figures() {
    let Team { people, _dir, store, st } = alice_and_bob();
    let opts_now = now();
    let r =
        team(&common::view(&store, &PriceTable::embedded().unwrap(), opts_now), &Query::new(chrono_tz::UTC)).unwrap();
    assert_eq!(r.rows.iter().map(|x| x.user.as_str()).collect::<Vec<_>>(), ["alice", "bob"]);
    let body = page(&st, "/team").await;
    for (row, (_, rows)) in r.rows.iter().zip(&people) {
        let f = &row.figures;
        assert!(close(f.cost_usd, cost(rows)), "{}: {} vs {}", row.user, f.cost_usd, cost(rows));
        assert!(body.contains(&format!("<a href=\"/?user={}\">{}</a>", row.user, row.user)), "{} links", row.user);
        for usd in [
            f.cost_usd,
            f.cost_per_active_day_mean_usd,
            f.cost_per_active_day_median_usd,
            f.cost_per_active_day_p90_usd,
        ] {
            assert!(body.contains(&dollars(usd)), "{}: {} missing", row.user, dollars(usd));
        }
        assert!(body.contains(&dollars(row.monthly_projection_usd)), "{} run-rate", row.user);
    }
    assert_eq!((r.rows[0].figures.active_days, r.rows[1].figures.active_days), (2, 2));
    assert!(close(r.total.figures.cost_usd, cost(&people[0].1) + cost(&people[1].1)));
    assert!(body.contains(&dollars(r.total.figures.cost_usd)), "team total");
    assert!(body.contains("Team (2 people)"));
    assert!(body.contains("href=\"https://code.claude.com/docs/en/costs\""), "baseline source link");
    assert!(body.contains("$13.00") && body.contains("$30.00"), "baseline figures");
    assert!(body.contains("claude-sonnet-4-5-20250929"), "top model");
    let texts = chart_texts(&body);
    assert!(texts.iter().any(|t| t == "alice") && texts.iter().any(|t| t == "bob"), "legend: {texts:?}");
    assert!(["02-11", "02-12", "02-13"].iter().all(|d| texts.iter().any(|t| t == d)), "a bar per day: {texts:?}");
    // The window follows since/until.
    let later = page(&st, "/team?since=2026-02-12").await;
    assert!(!later.contains(&dollars(r.rows[0].figures.cost_usd)), "alice's day 1 is out of the window");
    assert!(later.contains(&dollars(cost(&people[0].1[4..]))), "alice's day 2 only");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn api_team_equals_the_cli_json() {
    let Team { people, _dir, store, st } = alice_and_bob();
    for (uri, extra) in [
        ("/api/team", vec![]),
        ("/api/team?since=2026-02-12", vec!["--since", "2026-02-12"]),
        ("/api/team?until=2026-02-12&user=bob", vec!["--until", "2026-02-12", "--user", "bob"]),
    ] {
        let web = api(&st, uri).await;
        let mut args = vec!["--no-ingest", "report", "team", "--json"];
        args.extend(extra);
        let cli = json(&cw(None, store.dir(), &args));
        for (i, row) in cli["rows"].as_array().unwrap().iter().enumerate() {
            for key in ["user", "active_days", "requests", "cost_usd", "cost_per_active_day_median_usd"] {
                assert_eq!(web["rows"][i][key], row[key], "{uri}: rows[{i}].{key}");
            }
            assert_eq!(web["rows"][i]["cost_per_active_day_p90_usd"], row["cost_per_active_day_p90_usd"], "{uri}");
        }
        assert_eq!(web["total"]["cost_usd"], cli["total"]["cost_usd"], "{uri}");
        assert_eq!(web, cli, "{uri}");
    }
    let all = api(&st, "/api/team").await;
    assert_eq!(all["rows"][0]["user"], "alice");
    assert!(close(all["rows"][0]["cost_usd"].as_f64().unwrap(), cost(&people[0].1)));
    assert!(close(total_cost(&all), cost(&people[0].1) + cost(&people[1].1)));
    let bob = api(&st, "/api/team?until=2026-02-12&user=bob").await;
    assert_eq!(bob["rows"].as_array().map(Vec::len), Some(1));
    assert!(close(total_cost(&bob), cost(&people[1].1[..2])), "bob's day 1 only");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn user_filter_splits_every_total_into_each_persons() {
    let Team { people, _dir, store, st } = alice_and_bob();
    let all = api(&st, "/api/daily").await;
    let mut sum = 0.0;
    for (user, rows) in &people {
        let mine = api(&st, &format!("/api/daily?user={user}")).await;
        assert!(close(total_cost(&mine), cost(rows)), "{user}: {} vs {}", total_cost(&mine), cost(rows));
        assert_eq!(mine["total"]["requests"].as_u64(), Some(rows.len() as u64));
        let cli = json(&cw(None, store.dir(), &["--no-ingest", "report", "daily", "--json", "--user", user]));
        assert_eq!(mine, cli, "{user}: web and CLI agree");
        sum += total_cost(&mine);
        // Sessions, cache, overview, days and projects follow the filter.
        let sessions = api(&st, &format!("/api/sessions?user={user}")).await;
        let ids: Vec<&str> =
            sessions["rows"].as_array().unwrap().iter().map(|r| r["session_id"].as_str().unwrap()).collect();
        assert!(ids.len() == 2 && ids.iter().all(|id| id.starts_with(user)), "{user}: {ids:?}");
        let cache = api(&st, &format!("/api/cache?user={user}")).await;
        assert_eq!(cache["requests"].as_u64(), Some(rows.len() as u64), "{user}: cache report");
        let overview = page(&st, &format!("/?user={user}")).await;
        assert!(
            overview.contains(&format!(
                "<h2>All time</h2><p class=\"big\">{}</p><p>{} requests</p>",
                dollars(cost(rows)),
                rows.len()
            )),
            "{user}"
        );
        let days = page(&st, &format!("/days?user={user}")).await;
        assert!(days.contains(&dollars(cost(rows))), "{user}: days total");
        assert!(days.contains(&format!("/day/2026-02-11?user={user}")), "{user}: day links keep the filter");
        let projects = page(&st, &format!("/projects?user={user}")).await;
        let other = if *user == "alice" { "bob" } else { "alice" };
        assert!(projects.contains(&format!("-home-{user}-app")) && !projects.contains(&format!("-home-{other}-app")));
        let table = page(&st, &format!("/sessions?user={user}")).await;
        assert!(table.contains(&format!("2 sessions match, {}", dollars(cost(rows)))), "{user}: sessions table");
    }
    assert!(close(sum, total_cost(&all)), "alice + bob = everyone: {sum} vs {}", total_cost(&all));
    assert!(close(total_cost(&all), cost(&people[0].1) + cost(&people[1].1)));
    // A name nobody has: empty results, not an error.
    let nobody = api(&st, "/api/daily?user=carol").await;
    assert_eq!((nobody["rows"].as_array().map(Vec::len), nobody["total"]["requests"].as_u64()), (Some(0), Some(0)));
    assert_eq!(api(&st, "/api/team?user=carol").await["rows"].as_array().map(Vec::len), Some(0));
    for uri in ["/?user=carol", "/sessions?user=carol", "/days?user=carol", "/cache?user=carol", "/team?user=carol"] {
        assert!(page(&st, uri).await.contains("No requests by carol"), "{uri}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn person_selector_and_team_entry_only_with_several_people() {
    let Team { people, _dir, st, .. } = alice_and_bob();
    let body = page(&st, "/days?page=1").await;
    assert!(body.contains("<select name=\"user\">"), "the selector");
    assert!(body.contains("<option value=\"alice\">") && body.contains("<option value=\"bob\">"));
    assert!(body.contains("href=\"/team\""), "the Team entry");
    let filtered = page(&st, "/sessions?user=bob&sort=requests").await;
    assert!(filtered.contains("<option value=\"bob\" selected>"), "the current person is selected");
    assert!(filtered.contains("<input type=\"hidden\" name=\"sort\" value=\"requests\">"), "other params are kept");
    assert!(
        filtered.contains("href=\"/team?user=bob\"") && filtered.contains("href=\"/days?user=bob\""),
        "nav keeps it"
    );
    assert!(!filtered.contains("No requests by"));

    let (_d1, one) = team_dir(&people[..1]);
    let st1 = state(&one);
    for uri in ["/", "/days", "/sessions", "/cache"] {
        let body = page(&st1, uri).await;
        assert!(!body.contains("name=\"user\""), "{uri}: no selector for one person");
        assert!(!body.contains("href=\"/team\""), "{uri}: no Team entry for one person");
    }
    let alone = page(&st1, "/team").await;
    assert!(alone.contains("fewer than two") && alone.contains("cachewise import FILE... --data-dir DIR"), "{alone}");
    assert!(!alone.contains("<svg"), "no chart without a team");
    let empty_dir = tempfile::tempdir().unwrap();
    let empty = state(&Store::open(empty_dir.path()).unwrap());
    assert!(page(&empty, "/team").await.contains("cachewise import FILE... --data-dir DIR"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn person_names_are_escaped() {
    let evil = "eve<img src=x onerror=alert(1)>";
    let mut people = people();
    people.push((evil, session(evil, "eve-s1", 30, 2)));
    let (_d, store) = team_dir(&people);
    let st = state(&store);
    for uri in ["/team", "/", "/days", "/sessions?user=eve%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E"] {
        let (status, body) = get(&st, uri).await;
        assert_eq!(status, StatusCode::OK, "{uri}");
        assert!(!body.contains("<img src=x"), "{uri} leaks the name unescaped");
    }
    let v = api(&st, "/api/team").await;
    assert_eq!(v["rows"][2]["user"], evil, "JSON carries the name as it is");
    let team_page = page(&st, "/team").await;
    assert!(team_page.contains("eve&#60;img") || team_page.contains("eve&lt;img"), "the name is shown, escaped");
    assert!(team_page.contains("/?user=eve%3Cimg%20src%3Dx"), "the link encodes it");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn team_downloads_are_the_reports_csv_and_markdown() {
    use cachewise::report::team::{render, TeamFormat};
    let Team { _dir, store, st, .. } = alice_and_bob();
    // 2026-02-12: alice's second day; bob is idle.
    let range = "?since=2026-02-12&until=2026-02-12";
    let body = page(&st, &format!("/team{range}")).await;
    assert!(body.contains("/api/team.csv?since=2026-02-12"), "a CSV link with the range");
    assert!(body.contains("/api/team.md?since=2026-02-12"), "a Markdown link");
    assert!(body.contains("Adoption: 1 of 2 people active (50%)"), "{body}");
    assert!(body.contains("this team: 1 of the 1 active person under it"), "the baseline's count: {body}");
    let json = api(&st, &format!("/api/team{range}")).await;
    assert_eq!(
        (json["total"]["people_active"].as_u64(), json["total"]["adoption_pct"].as_f64()),
        (Some(1), Some(50.0))
    );
    let day = chrono::NaiveDate::from_ymd_opt(2026, 2, 12);
    let q = Query { since: day, until: day, ..Query::new(chrono_tz::UTC) };
    let r = team(&common::view(&store, &PriceTable::embedded().unwrap(), now()), &q).unwrap();
    let req = Request::builder().uri(format!("/api/team.csv{range}")).body(Body::empty()).unwrap();
    let res = app(st.clone()).oneshot(req).await.unwrap();
    assert_eq!(res.status(), StatusCode::OK);
    assert_eq!(res.headers()["content-type"], "text/csv; charset=utf-8");
    assert!(res.headers()["content-disposition"].to_str().unwrap().contains("cachewise-team.csv"));
    let csv = String::from_utf8(res.into_body().collect().await.unwrap().to_bytes().to_vec()).unwrap();
    assert_eq!(csv, render(&r, TeamFormat::Csv));
    assert_eq!(csv.lines().count(), 2, "one person-day: alice on 2026-02-12:\n{csv}");
    let (status, md) = get(&st, &format!("/api/team.md{range}")).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(md, render(&r, TeamFormat::Markdown));
    assert!(md.contains("| bob | 0 |"), "{md}");
}

/// The texts of the cells of the Team table's row of `user`.
fn row_texts(body: &str, user: &str) -> Vec<String> {
    let at = body.find(&format!("<tr><td><a href=\"/?user={user}\">")).expect("the person's row");
    let row = &body[at..at + body[at..].find("</tr>").unwrap()];
    row.split("<td").skip(1).map(|c| common::words::text_of(&format!("<td{c}")).trim().to_owned()).collect()
}

/// Alice: four Sonnet turns and one fast-mode Opus turn. Bob: five turns,
/// the fourth a rebuild of the whole prompt three minutes after the third
/// (the cache was warm: money lost to a prompt edit, not to expiry).
fn fast_and_edits() -> Vec<(&'static str, Vec<Row>)> {
    let mut alice = session("alice", "alice-s1", 0, 4);
    let mut fast = row("alice", "alice-s1", 5, 15);
    fast.model = "claude-opus-4-6".into();
    fast.speed = "fast".into();
    alice.push(fast);
    let mut bob = session("bob", "bob-s1", 60, 5);
    bob[3].tokens.cache_read = 0;
    bob[3].tokens.cache_write_5m = 30_000;
    vec![("alice", alice), ("bob", bob)]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn team_page_has_the_terminal_columns_and_the_cli_figures_with_fast_mode_apart() {
    use cachewise::report::team::HEADER;
    let people = fast_and_edits();
    let (_dir, store) = team_dir(&people);
    let st = state(&store);
    let cli = json(&cw(None, store.dir(), &["--no-ingest", "report", "team", "--json"]));
    let body = page(&st, "/team").await;
    let text = common::words::text_of(&body);
    for h in HEADER {
        assert!(text.contains(h), "the terminal's column {h:?} is on the page");
    }
    assert!(
        body.contains("<div class=\"table-scroll\">\n<table class=\"sortable team\">"),
        "the table scrolls in its column"
    );
    let bob = &cli["rows"][1];
    assert_eq!(bob["user"], "bob");
    assert!(bob["edit_cost_usd"].as_f64().unwrap() > 0.001, "bob lost money to a prompt edit: {bob}");
    for (i, person) in cli["rows"].as_array().unwrap().iter().enumerate() {
        let user = person["user"].as_str().unwrap();
        let cells = row_texts(&body, user);
        let usd = |k: &str| dollars(person[k].as_f64().unwrap());
        // Person, Machines, then the terminal's columns after Person, then Top model.
        assert_eq!(cells[0], user);
        assert_eq!(cells[2], person["active_days"].to_string(), "{user}");
        assert_eq!(cells[3], person["requests"].to_string(), "{user}");
        assert_eq!(cells[4], usd("cost_usd"), "{user}");
        assert_eq!(cells[5], usd("cost_per_active_day_mean_usd"), "{user}");
        assert_eq!(cells[9], usd("idle_cost_usd"), "{user}: lost to expired caches");
        assert_eq!(cells[10], usd("edit_cost_usd"), "{user}: lost to prompt edits");
        assert_eq!(cells[11], usd("monthly_projection_usd"), "{user}");
        assert_eq!(cells.len(), HEADER.len() + 2, "{user}: {cells:?}");
        assert_eq!(cells[cells.len() - 1], person["models"][0]["model"].as_str().unwrap(), "{user}: top model");
        assert_eq!(i == 1, user == "bob");
    }
    // Fast mode apart in the model mix: JSON, Markdown, terminal and page.
    let models: Vec<(&str, u64)> = cli["rows"][0]["models"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["model"].as_str().unwrap(), m["requests"].as_u64().unwrap()))
        .collect();
    assert_eq!(models.len(), 2, "{models:?}");
    assert!(models.contains(&("claude-opus-4-6 (fast)", 1)), "{models:?}");
    assert!(models.contains(&("claude-sonnet-4-5-20250929", 4)), "{models:?}");
    let by_model = json(&cw(None, store.dir(), &["--no-ingest", "report", "model", "--json", "--user", "alice"]));
    let fast = by_model["rows"].as_array().unwrap().iter().find(|r| r["model"] == "claude-opus-4-6 (fast)");
    let fast_share =
        cli["rows"][0]["models"].as_array().unwrap().iter().find(|m| m["model"] == "claude-opus-4-6 (fast)");
    assert_eq!(fast.map(|r| &r["cost_usd"]), fast_share.map(|m| &m["cost_usd"]), "the same split as report model");
    let md = cw(None, store.dir(), &["--no-ingest", "report", "team", "--md"]);
    let md = String::from_utf8_lossy(&md.stdout);
    assert!(md.contains("| alice | claude-opus-4-6 (fast) | 1 |"), "{md}");
    let term = cw(None, store.dir(), &["--no-ingest", "report", "team"]);
    let term = String::from_utf8_lossy(&term.stdout);
    assert!(term.contains("Model mix") && term.contains("claude-opus-4-6 (fast)"), "{term}");
    assert!(text.contains("Model mix") && text.contains("claude-opus-4-6 (fast)"), "the page's model mix");
    assert_eq!(api(&st, "/api/team").await, cli, "/api/team");
}

/// A `/team` page over every day of data, more days than a pilot: the
/// run-rate is an average over all history, and the page says so beside it
/// (the terminal report warns the same way); with dates chosen it does not.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn team_page_over_all_history_warns_that_the_run_rate_averages_it() {
    let mut alice = session("alice", "alice-s1", 0, 2);
    alice.extend(session("alice", "alice-s2", 40 * DAY, 2));
    let people = vec![("alice", alice), ("bob", session("bob", "bob-s1", 60, 2))];
    let (_dir, store) = team_dir(&people);
    let st = common::web_state(&store, t0() + Duration::days(41));
    let body = page(&st, "/team").await;
    assert!(body.contains("No dates are chosen, so these figures cover all 41 days of data"), "{body}");
    assert!(body.contains("per seat (all history)"), "{body}");
    let chosen = page(&st, "/team?since=2026-02-11&until=2026-03-01").await;
    assert!(!chosen.contains("No dates are chosen") && !chosen.contains("(all history)"), "{chosen}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_team_members_session_is_named_by_its_project_and_first_day_not_its_id() {
    // Bundles carry no titles (a title summarises the conversation), so a
    // team member's session is named by what the bundle does carry.
    let Team { _dir, store, st, .. } = alice_and_bob();
    let list = page(&st, "/sessions?user=alice").await;
    assert!(list.contains(">app, 2026-02-11 (alice-s1)</a>"), "{list}");
    assert!(list.contains(">app, 2026-02-12 (alice-s2)</a>"));
    let heading = page(&st, "/session/alice-s2?user=alice").await;
    assert!(heading.contains("<h1>app, 2026-02-12 (alice-s2)</h1>"), "{heading}");
    let overview = page(&st, "/?user=bob").await;
    assert!(overview.contains(">app, 2026-02-13 (bob-s2)</a>"), "{overview}");
    let cli = support::ok(&cw(None, store.dir(), &["--no-ingest", "report", "session", "--user", "bob"]));
    let line = cli.lines().find(|l| l.starts_with("│ bob-s1 ")).unwrap();
    assert!(line.contains(" app, 2026-02-11 "), "{cli}");
}
