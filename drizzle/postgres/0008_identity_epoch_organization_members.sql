-- auth_state.epoch also moves when an organization's members change: its admins act as the
-- facilitators of its workshops, and a private step's card list, kept per reader, shows the
-- facilitators' cards; cached answers are checked against the epoch. Per row: an update that
-- changes no member (a signup claiming no seat) moves nothing.
CREATE TRIGGER "auth_state_on_organization_member_change" AFTER INSERT OR UPDATE OR DELETE ON "organization_members" FOR EACH ROW EXECUTE FUNCTION "auth_state_bump"();
