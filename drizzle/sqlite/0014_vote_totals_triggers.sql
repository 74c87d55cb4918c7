-- vote_totals follows votes as vote_tallies does: each voter's points across a workshop.
INSERT INTO `vote_totals` (`workshop_id`, `user_id`, `positive`, `negative`)
  SELECT `workshop_id`, `user_id`, sum(`positive`), sum(`negative`) FROM `vote_tallies` GROUP BY `workshop_id`, `user_id`;
--> statement-breakpoint
CREATE TRIGGER `vote_totals_on_insert` AFTER INSERT ON `votes`
BEGIN
  INSERT INTO `vote_totals` (`workshop_id`, `user_id`, `positive`, `negative`)
    VALUES (NEW.`workshop_id`, NEW.`user_id`, max(NEW.`value`, 0), max(-NEW.`value`, 0))
    ON CONFLICT (`workshop_id`, `user_id`) DO UPDATE SET
      `positive` = `positive` + max(NEW.`value`, 0),
      `negative` = `negative` + max(-NEW.`value`, 0);
END;
--> statement-breakpoint
CREATE TRIGGER `vote_totals_on_delete` AFTER DELETE ON `votes`
BEGIN
  UPDATE `vote_totals` SET `positive` = `positive` - max(OLD.`value`, 0), `negative` = `negative` - max(-OLD.`value`, 0)
    WHERE `workshop_id` = OLD.`workshop_id` AND `user_id` = OLD.`user_id`;
  DELETE FROM `vote_totals` WHERE `workshop_id` = OLD.`workshop_id` AND `user_id` = OLD.`user_id` AND `positive` = 0 AND `negative` = 0;
END;
--> statement-breakpoint
CREATE TRIGGER `vote_totals_on_update` AFTER UPDATE OF `value`, `user_id`, `workshop_id` ON `votes`
BEGIN
  UPDATE `vote_totals` SET `positive` = `positive` - max(OLD.`value`, 0), `negative` = `negative` - max(-OLD.`value`, 0)
    WHERE `workshop_id` = OLD.`workshop_id` AND `user_id` = OLD.`user_id`;
  DELETE FROM `vote_totals` WHERE `workshop_id` = OLD.`workshop_id` AND `user_id` = OLD.`user_id` AND `positive` = 0 AND `negative` = 0;
  INSERT INTO `vote_totals` (`workshop_id`, `user_id`, `positive`, `negative`)
    VALUES (NEW.`workshop_id`, NEW.`user_id`, max(NEW.`value`, 0), max(-NEW.`value`, 0))
    ON CONFLICT (`workshop_id`, `user_id`) DO UPDATE SET
      `positive` = `positive` + max(NEW.`value`, 0),
      `negative` = `negative` + max(-NEW.`value`, 0);
END;
