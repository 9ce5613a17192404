#!/usr/bin/env bash
# storage-rename.sh applies the storage split (issue 21: one storage
# package per entity under internal/dynamo, a core that imports no entity)
# to a Go tree, so a branch written against the single dynamo package can
# be brought over after a merge:
#
#   scripts/storage-rename.sh [root]
#
# 1. moves the repository files still at their old place (git mv when the
#    tree is a git checkout), as the split did;
# 2. in every .go file under root: the package clause of a moved file, the
#    core names a repository used unexported (putItem → dynamo.PutItem,
#    s.now() → s.Time()), the item types repositories share across
#    packages (emailItem → emaildb.EmailItem), and every caller's
#    qualifier (dynamo.Emails → emaildb.Emails, dynamo.Repositories →
#    repositories.Set);
# 3. adds the imports the new qualifiers need, drops a dynamo import left
#    unused, and gofmt's the files it changed.
#
# It uses only git, perl and gofmt. It is idempotent: a second run changes
# nothing. What it cannot know (a new file added to internal/dynamo by
# another branch, a new unexported helper used across entities) the
# compiler reports after it ran.
set -euo pipefail

root=${1:-$(git rev-parse --show-toplevel)}
cd "$root"
mod=github.com/sesame-mail/sesame/internal/dynamo

# Where each repository file went (its old name is kept, so git's rename
# detection follows it).
moves="
automation_items.go automationdb
automation_run_reads.go automationdb
automation_runs.go automationdb
automation_runs_test.go automationdb
automation_start.go automationdb
automations.go automationdb
automations_test.go automationdb
campaign_recipients.go campaigndb
campaigns.go campaigndb
campaigns_test.go campaigndb
clicks.go emaildb
clicks_test.go emaildb
contacts.go contactdb
contacts_import.go contactdb
contacts_list.go contactdb
contacts_list_test.go contactdb
contacts_test.go contactdb
domains.go workspacedb
domains_test.go workspacedb
email_content.go emaildb
emails.go emaildb
emails_test.go emaildb
events.go eventdb
held.go sendingdb
keys.go apikeydb
keys_test.go apikeydb
list_sends.go listmaildb
list_sends_test.go listmaildb
metrics.go metricsdb
oauth.go oauthdb
owners.go accountdb
pace.go capacitydb
pace_test.go capacitydb
repositories_test.go repositories
segments.go segmentdb
segments_test.go segmentdb
senders.go workspacedb
sends.go sendingdb
signins.go signindb
statuses.go statusdb
suppressions.go suppressiondb
templates.go emailtemplatedb
upgrade_test.go repositories
webhooks.go webhookdb
webhooks_test.go webhookdb
workspaces.go workspacedb
"
git_tree=false
git rev-parse --is-inside-work-tree >/dev/null 2>&1 && git_tree=true
while read -r file pkg; do
	[ -n "$file" ] || continue
	src=internal/dynamo/$file dst=internal/dynamo/$pkg/$file
	if [ -f "$src" ] && [ ! -f "$dst" ]; then
		mkdir -p "internal/dynamo/$pkg"
		if $git_tree; then git mv "$src" "$dst"; else mv "$src" "$dst"; fi
	fi
done <<<"$moves"

changed=$(mktemp)
trap 'rm -f "$changed"' EXIT
find . -name '*.go' -not -path './node_modules/*' -not -path '*/node_modules/*' -not -path './cdk.out/*' -print0 |
	MOD="$mod" xargs -0 perl -e '
use strict; use warnings;
my $mod = $ENV{MOD};
my @pkgs = qw(accountdb apikeydb automationdb campaigndb capacitydb contactdb emaildb emailtemplatedb eventdb
	listmaildb metricsdb oauthdb segmentdb sendingdb signindb statusdb suppressiondb webhookdb workspacedb repositories);
my %storage = map { $_ => 1 } @pkgs;

# Exported repository types: where each went.
my %type_home = (
	AutomationRuns => "automationdb", Automations => "automationdb", Campaigns => "campaigndb",
	Clicks => "emaildb", Emails => "emaildb", Contacts => "contactdb", Domains => "workspacedb",
	Senders => "workspacedb", Workspaces => "workspacedb", Events => "eventdb", Held => "sendingdb",
	Sends => "sendingdb", Keys => "apikeydb", ListSends => "listmaildb", Metrics => "metricsdb",
	OAuth => "oauthdb", Owners => "accountdb", Pace => "capacitydb", Segments => "segmentdb",
	SignIns => "signindb", Statuses => "statusdb", Suppressions => "suppressiondb",
	Templates => "emailtemplatedb", Webhooks => "webhookdb",
);
my %qualified = map { ("dynamo.$_" => "$type_home{$_}.$_") } keys %type_home;
$qualified{"dynamo.Repositories"} = "repositories.Set";
$qualified{"dynamo.NewRepositories"} = "repositories.New";

# Unexported names used across packages: [name, new name, home package
# ("dynamo" is the core), kind]. Kinds: f a function (renamed where
# called, name( or name[), w a type, constant or variable (any bare use),
# m a method (renamed after a dot, and its declaration in its home).
my @names;
sub add { my ($home, $kind, %m) = @_; push @names, map { [$_, $m{$_}, $home, $kind] } sort keys %m }
sub up { my $n = shift; return ucfirst $n }
sub same { my ($home, $kind, @n) = @_; add($home, $kind, map { ($_ => up($_)) } @n) }
same("dynamo", "f", qw(queryAll filteredPage listPartition getAs listAs itemExists itemAbsent isConditionFailed
	isTransactionConditionFailed storeFault key shardOf mergedPage stringAttr timeKey reputationExpiry
	auditPK campaignPK campaignRecipientsPK chunkPK clickPK contactEmailPK contactPK contactShardPK dedupePK
	domainClaimPK domainListPK domainPK emailContentPK emailPK emailShardPKs feedPK feedShardPKs heldByTemplatePK
	heldPK idempotencyPK keysPK legacyEmailPK metricsShardPKs ownerLookupPK ownersPK reputationPK segmentPK
	senderPK storedTemplatePK storedTemplateVersionPK suppressionListPK suppressionPK templatePK usagePK
	webhookAttemptPK webhookAttemptShardPKs webhookPK workspaceKey workspacePK));
add("dynamo", "f", apiKeySecretPK => "APIKeySecretPK", oauthGrantPK => "OAuthGrantPK", wsPK => "WSPK", wsSubPK => "WSSubPK");
same("dynamo", "w", qw(noCondition autoDuePrefix autoTickPK contactShards counterShards domainClaimSK duePK
	faultRetryAfter kindAutomation kindAutomationKey kindAutomationListener kindAutomationListenerCount
	kindAutomationLive kindAutomationRate kindAutomationRun kindAutomationVersion kindCampaignProgress kindEmail
	kindWebhookAttempt kindWorkspace pacePK sessionPrefix signinLinkPrefix signinRatePrefix workspacesListPK
	transactRetries sortKeyed));
add("dynamo", "w", apiKeySecretSK => "APIKeySecretSK", oauthClientPrefix => "OAuthClientPrefix",
	oauthClientSK => "OAuthClientSK", oauthCodePrefix => "OAuthCodePrefix", oauthCodeSK => "OAuthCodeSK",
	oauthRefreshPrefix => "OAuthRefreshPrefix", oauthRefreshSK => "OAuthRefreshSK");
same("dynamo", "m", qw(getItem partition batchGet batchWrite putOf put putItem workspaceCheck updateOf update
	updateItem deleteOf remove deleteExisting transact transactGuarded queryPage sortKey));
add("dynamo", "m", now => "Time");
same("emaildb", "w", qw(emailItem clickItem keptContentSK));
same("emaildb", "f", qw(newEmailItem gzipJSON));
same("eventdb", "w", qw(feedItem));
same("contactdb", "w", qw(contactItem));
same("contactdb", "m", qw(contact));
same("workspacedb", "w", qw(senderItem workspaceItem));
same("workspacedb", "m", qw(sender workspace));
same("sendingdb", "w", qw(idempotencyItem usageItem));
same("sendingdb", "m", qw(record claimPut writeClaimed));
same("automationdb", "f", qw(newWakeItem));
same("apikeydb", "w", qw(keySecretItem));
same("apikeydb", "f", qw(toScopes fromScopes));

# Methods that were the core Table'"'"'s and are the email repository'"'"'s now:
# another repository calls them on an Emails over its table.
my @email_methods = qw(emailItem updateEmail emailStatusUpdate keptContentPut);
# Repositories another package builds over its own table.
my @built = qw(Emails Held Sends Suppressions Workspaces);

for my $path (@ARGV) {
	next if $path =~ m{/(node_modules|cdk\.out)/};
	open(my $fh, "<", $path) or die "$path: $!";
	local $/; my $text = <$fh>; close $fh;
	my $orig = $text;
	my $pkg = "";
	$pkg = "dynamo" if $path =~ m{(^|/)internal/dynamo/[^/]+\.go$};
	if ($path =~ m{(^|/)internal/dynamo/([a-z]+)/[^/]+\.go$} && $storage{$2}) { $pkg = $2 }
	my $base = $path; $base =~ s{.*/}{};

	if ($storage{$pkg}) {
		$text =~ s/^package dynamo_test$/package ${pkg}_test/m;
		$text =~ s/^package dynamo$/package $pkg/m;
	}
	my ($clause) = $text =~ /^package (\w+)/m;
	$clause //= "";
	my $internal = $clause !~ /_test$/;

	if ($pkg ne "" && !($pkg eq "dynamo" && $base eq "client.go")) {
		# The Table methods that became the email repository'"'"'s.
		if ($pkg eq "emaildb") {
			for my $m (@email_methods) {
				my $n = up($m);
				$text =~ s/^func \(s \*Table\) $m\(/func (s *Emails) $n(/mg;
				$text =~ s/\.$m\(/.$n(/g;
				$text =~ s{^(\s*// )$m\b}{$1$n}mg;
			}
		} elsif ($storage{$pkg}) {
			for my $m (@email_methods) { my $n = up($m); $text =~ s/\bs\.$m\(/(&emaildb.Emails{Table: s.Table}).$n(/g }
		}
		# A workspace method the domains call.
		if ($pkg eq "workspacedb") {
			$text =~ s/^func \(s \*Table\) (setVerifiedDomain|updateWorkspace)\(/func (s *Workspaces) $1(/mg;
			$text =~ s/\bs\.setVerifiedDomain\(/(&Workspaces{s.Table}).setVerifiedDomain(/g if $base ne "workspaces.go";
		}
		if ($storage{$pkg}) {
			for my $t (@built) {
				my $h = $type_home{$t};
				next if $h eq $pkg && $internal;
				$text =~ s/&\Q$t\E\{s\.Table\}/&$h.$t\{Table: s.Table\}/g;
			}
		}
		for my $e (@names) {
			my ($n, $new, $home, $kind) = @$e;
			my $here = ($home eq $pkg && $internal);
			my $q = $here ? $new : "$home.$new";
			if ($kind eq "m") {
				# Automations has a transact of its own over the Table'"'"'s.
				if ($n eq "transact" && $base eq "automations.go") {
					$text =~ s/\.Table\.transact\(/.Table.Transact(/g;
					next;
				}
				# A method of an item is also used as a value (senderItem.sender).
				if ($home eq "dynamo") { $text =~ s/\.$n\(/.$new(/g } else { $text =~ s/\.$n\b/.$new/g }
				if ($here || ($home eq "dynamo" && $storage{$pkg})) {
					$text =~ s/^(func \([^)]*\) )$n([(\[])/$1$new$2/mg;
				}
				if ($here) {
					$text =~ s/(interface\{ |^\t+)$n\(\)/$1$new()/mg;
					$text =~ s{^(\s*// )$n\b}{$1$new}mg;
				}
				next;
			}
			next unless $storage{$pkg} || $pkg eq "dynamo";
			next if $pkg eq "dynamo" && $home ne "dynamo";
			if ($kind eq "f") {
				$text =~ s{(?<![.\w])$n(?=[(\[])}{ (substr($text, 0, $-[0]) =~ m{(?:^|\n)func \([^)\n]*\) \z}) ? $n : $q }ge;
				$text =~ s{^(\s*// )$n\b}{$1$new}mg if $here;
			} else {
				$text =~ s{(?<![.\w"])$n\b(?!")}{$q}g;
			}
		}
		# The exported types of the core, used bare before the split.
		if ($storage{$pkg} && $internal) {
			$text =~ s/(?<=\*)Table\b/dynamo.Table/g;
			$text =~ s/(?<![.\w"])NewTable\(/dynamo.NewTable(/g;
		}
		if ($storage{$pkg} && $base =~ /_test\.go$/) {
			$text =~ s/(?<![.\w])each\(/dynamotest.Each(/g;
			$text =~ s/(?<![.\w])newCampaignStore\(/dynamotest.StoreWithWorkspace(/g;
			$text =~ s/(?<![.\w])scanCounter\b/dynamotest.ScanCounter/g;
			$text =~ s/\.take\(\)/.Take()/g;
		}
	}
	# Callers, and the tests of any package: the qualified names.
	$text =~ s/\b(dynamo\.\w+)\b/ exists $qualified{$1} ? (do { my $r = $qualified{$1}; ($internal && $r =~ m{^\Q$clause\E\.(.*)}) ? $1 : $r }) : $1 /ge;

	next if $text eq $orig;

	# Imports: add what the new qualifiers need, drop an unused dynamo.
	(my $code = $text) =~ s{//[^\n]*}{}g;
	$code =~ s{^import \(.*?^\)}{}ms;
	my @need;
	for my $p ("dynamo", "dynamotest", @pkgs) {
		next if $internal && $p eq $clause;
		my $imp = $p eq "dynamo" ? $mod : "$mod/$p";
		my $has = $text =~ /^\s*(\w+\s+)?"\Q$imp\E"$/m;
		my $uses = $code =~ /(?<![.\w])\Q$p\E\./;
		if ($uses && !$has) { push @need, "\t\"$imp\"\n" }
		if (!$uses && $has && $p eq "dynamo") { $text =~ s/^\s*"\Q$imp\E"\n//m }
	}
	if (@need) {
		my $lines = join "", @need;
		if ($text =~ m{^\s*"github\.com/sesame-mail/sesame/[^"]*"\n}m) {
			$text =~ s{(^\s*"github\.com/sesame-mail/sesame/[^"]*"\n)(?!\s*"github\.com/sesame-mail/sesame/)}{$1$lines}m;
		} elsif ($text =~ /^import \(\n/m) {
			$text =~ s{^(import \(\n(?:.*\n)*?)\)}{$1\n$lines)}m;
		} elsif ($text =~ /^import ("[^"]+")\n/m) {
			$text =~ s{^import ("[^"]+")\n}{import (\n\t$1\n\n$lines)\n}m;
		} else {
			$text =~ s{^(package \w+\n)}{$1\nimport (\n$lines)\n}m;
		}
	}
	open(my $out, ">", $path) or die "$path: $!";
	print $out $text; close $out;
	print STDOUT "$path\n";
}
' >"$changed"

if [ -s "$changed" ]; then
	xargs gofmt -w <"$changed"
	echo "storage-rename: $(wc -l <"$changed") files changed" >&2
fi

# Docs name test files and repositories: their new paths and qualifiers.
docs=$(find . -name '*.md' -not -path '*/node_modules/*' -not -path './cdk.out/*')
[ -n "$docs" ] || exit 0
MOVES="$moves" perl -i -pe '
BEGIN {
	for (split /\n/, $ENV{MOVES}) { my ($f, $p) = split " "; $to{$f} = $p if $p }
	%home = (AutomationRuns => "automationdb", Automations => "automationdb", Campaigns => "campaigndb",
		Clicks => "emaildb", Emails => "emaildb", Contacts => "contactdb", Domains => "workspacedb",
		Senders => "workspacedb", Workspaces => "workspacedb", Events => "eventdb", Held => "sendingdb",
		Sends => "sendingdb", Keys => "apikeydb", ListSends => "listmaildb", Metrics => "metricsdb",
		OAuth => "oauthdb", Owners => "accountdb", Pace => "capacitydb", Segments => "segmentdb",
		SignIns => "signindb", Statuses => "statusdb", Suppressions => "suppressiondb",
		Templates => "emailtemplatedb", Webhooks => "webhookdb");
}
s{internal/dynamo/(\w+\.go)\b}{ $to{$1} ? "internal/dynamo/$to{$1}/$1" : "internal/dynamo/$1" }ge;
s{\bdynamo\.(\w+)\b}{ $home{$1} ? "$home{$1}.$1" : "dynamo.$1" }ge;
' $docs
